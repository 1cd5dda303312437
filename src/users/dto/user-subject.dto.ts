import { ApiProperty } from '@nestjs/swagger';
import { IsString, MinLength } from 'class-validator';

/**
 * The player of the body routes of a player's data (POST .../users/export, .../users/erase): an id
 * of any length, where a path carries at most MAX_PATH_USER_ID characters. A NUL character is
 * refused by the global pipe, as in every body.
 */
export class UserSubjectDto {
  @ApiProperty({
    description: 'the external user id, of any length: ids longer than a path carries (16,384 characters) can be named only here',
    minLength: 1,
    example: 'player-1842',
  })
  @IsString({ message: 'userId must be a non-empty string' })
  @MinLength(1, { message: 'userId must be a non-empty string' })
  userId!: string;
}
