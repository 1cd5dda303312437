import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { StrictBody } from '../../common/validation/validation.pipe';
import { NAME_LISTS, type NameList } from '../name-matcher';

/** EXTENSIONS X10: a text to try against the game's name policy; as long as a group name may be. */
@StrictBody()
export class NamesTestDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'The 0fficial 4dm1n Squad' })
  @IsString({ message: 'text must be a string of 1-120 characters' })
  @Length(1, 120, { message: 'text must be a string of 1-120 characters' })
  text!: string;
}

export class NameMatchDto {
  @ApiProperty({ example: 'admin', description: 'the entry of the list, as the game config holds it' }) word!: string;
  @ApiProperty({ enum: NAME_LISTS, example: 'reserved' }) list!: NameList;
  @ApiProperty({ type: 'integer', example: 13, description: 'where the match starts in text (inclusive, UTF-16 code units)' }) start!: number;
  @ApiProperty({ type: 'integer', example: 18, description: 'where the match ends in text (exclusive, UTF-16 code units)' }) end!: number;
}

export class NamesTestResultDto {
  @ApiProperty({ description: 'what a group create through a game key would make of text as a name: false when any blocked or reserved word is found' })
  allowed!: boolean;

  @ApiProperty({ type: [NameMatchDto], description: 'every listed word found, by place in text' })
  matches!: NameMatchDto[];
}

export class NamesScanResultDto {
  @ApiProperty({ type: 'integer', description: 'the live groups of the game matched against the policy' }) scanned!: number;
  @ApiProperty({
    type: 'integer',
    description: 'the groups whose name or a tag a blocked word matches: each holds an open offensive_name report of the service, filed by this scan or an earlier one',
  })
  flagged!: number;
}
