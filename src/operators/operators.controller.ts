import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Acting } from '../common/auth/acting-operator.decorator';
import type { ActingOperator } from '../common/auth/operator-roles';
import { AdminRoute, MinRole } from '../common/auth/route-auth.decorator';
import { ApiErrors } from '../common/errors/api-error-responses.decorator';
import {
  CreatedOperatorDto,
  CreateOperatorDto,
  OperatorAuditPageDto,
  OperatorAuditQueryDto,
  OperatorDto,
  OperatorListDto,
  OperatorWhoamiDto,
  UpdateOperatorDto,
} from './dto/operator.dto';
import { OperatorsService } from './operators.service';

@ApiTags('admin: operators')
@ApiBearerAuth('adminToken')
@AdminRoute()
@Controller('v1/admin')
export class OperatorsController {
  constructor(private readonly operators: OperatorsService) {}

  @Post('operators')
  @MinRole('owner')
  @ApiOperation({ operationId: 'adminCreateOperator', summary: 'Add a named operator with a role; the answer shows its token once' })
  @ApiCreatedResponse({ type: CreatedOperatorDto })
  @ApiErrors(400, 401)
  create(@Body() body: CreateOperatorDto, @Acting() by: ActingOperator): Promise<CreatedOperatorDto> {
    return this.operators.create(body, by);
  }

  @Get('operators')
  @MinRole('owner')
  @ApiOperation({ operationId: 'adminListOperators', summary: 'The operators, oldest first (never their tokens)' })
  @ApiOkResponse({ type: OperatorListDto })
  @ApiErrors(401)
  list(): Promise<OperatorListDto> {
    return this.operators.list();
  }

  @Patch('operators/:id')
  @MinRole('owner')
  @ApiOperation({ operationId: 'adminUpdateOperator', summary: "Change an operator's role; it holds from their next request" })
  @ApiOkResponse({ type: OperatorDto })
  @ApiErrors(400, 401, 404)
  update(@Param('id') id: string, @Body() body: UpdateOperatorDto, @Acting() by: ActingOperator): Promise<OperatorDto> {
    return this.operators.setRole(id, body.role, by);
  }

  @Delete('operators/:id')
  @MinRole('owner')
  @HttpCode(204)
  @ApiOperation({ operationId: 'adminDeleteOperator', summary: "Delete an operator: their token stops working at once, their audit entries stay" })
  @ApiNoContentResponse()
  @ApiErrors(401, 404)
  async remove(@Param('id') id: string, @Acting() by: ActingOperator): Promise<void> {
    await this.operators.delete(id, by);
  }

  @Get('whoami')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminWhoami', summary: 'Who the admin credential is: an operator (name and role) or the root token' })
  @ApiOkResponse({ type: OperatorWhoamiDto })
  @ApiErrors(401)
  whoami(@Acting() by: ActingOperator): OperatorWhoamiDto {
    return { id: by.id, name: by.name, role: by.role };
  }

  @Get('operator-audit')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'adminListOperatorAudit', summary: 'What operators and the root token changed through the admin routes, newest first' })
  @ApiOkResponse({ type: OperatorAuditPageDto })
  @ApiErrors(400, 401)
  audit(@Query() query: OperatorAuditQueryDto): Promise<OperatorAuditPageDto> {
    return this.operators.audit(query);
  }
}
