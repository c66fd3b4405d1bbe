import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authorize } from '../auth/authorize.decorator';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { ErrorBody, FieldErrorBody, NumericErrorBody, SchemaValidationErrorBody } from '../http/error-bodies';
import { parseJsonObject } from '../http/json-body';
import { optionalProductName, requireProductName } from '../http/product-header';
import { requestTenant } from '../http/request-tenant';
import { requireIdParam } from '../http/uuid-param';
import { AssignConnectionCommand } from './commands/assign-connection.command';
import { CreateConnectionCommand } from './commands/create-connection.command';
import { DeleteConnectionCommand } from './commands/delete-connection.command';
import { TestConnectionCommand, type TestConnectionResult } from './commands/test-connection.command';
import { UpdateConnectionCommand } from './commands/update-connection.command';
import { ConnectionSchemaResponse, TestConnectionResponse, ValidateSchemaResponse } from './dto/connection-schema.response';
import { ConnectionListResponse, ConnectionResponse, connectionResponse } from './dto/connection.response';
import { CreateConnectionRequest, readCreateConnection } from './dto/create-connection.request';
import { readListParams } from './dto/list-connections.params';
import { readConnectionPatch, UpdateConnectionRequest } from './dto/update-connection.request';
import { readValidateSchema, ValidateSchemaRequest } from './dto/validate-schema.request';
import { GetConnectionSchemaQuery } from './queries/get-connection-schema.query';
import { GetConnectionQuery } from './queries/get-connection.query';
import { ListConnectionsQuery } from './queries/list-connections.query';
import { ValidateSchemaQuery, type ValidateSchemaResult } from './queries/validate-schema.query';

const PRODUCT_HEADER = { name: 'X-Product-Name', required: true, description: 'The owning product; lower-cased' } as const;
const LIST_QUERIES = [
  { name: 'page', required: false, type: Number },
  { name: 'limit', required: false, type: Number },
  { name: 'sortOrder', required: false, enum: ['asc', 'desc'] },
  { name: 'startDate', required: false, description: 'YYYY-MM-DD (UTC), inclusive' },
  { name: 'endDate', required: false, description: 'YYYY-MM-DD (UTC), inclusive' },
] as const;

function listQueries(): MethodDecorator {
  return (target, key, descriptor) => {
    for (const q of LIST_QUERIES) ApiQuery(q)(target, key, descriptor);
  };
}

/**
 * The connection routes. Each handler parses (id, headers, body, query) in the contract's order,
 * sends one command or query, and shapes the answer. Static paths come before `:id`.
 */
@ApiTags('connections')
@ApiBearerAuth('bearer')
@ApiResponse({ status: 400, description: 'Validation error; a parse failure (FET-0001) adds reason and field', type: ErrorBody })
@ApiResponse({ status: 401, description: 'Missing or unreadable token (plain text), when authorization is on' })
@ApiResponse({ status: 403, description: 'Not authorized (plain text), when authorization is on' })
@ApiResponse({ status: 500, description: 'Internal error', type: ErrorBody })
@Controller('v1/management/connections')
export class ConnectionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(MANAGER_CONFIG) private readonly config: ManagerConfig,
  ) {}

  @Post()
  @Authorize('connections', 'post')
  @HttpCode(201)
  @ApiOperation({ operationId: 'createConnection', summary: 'Register a datasource connection (no connectivity test)' })
  @ApiHeader(PRODUCT_HEADER)
  @ApiBody({ type: CreateConnectionRequest })
  @ApiResponse({ status: 201, type: ConnectionResponse })
  @ApiResponse({ status: 409, description: 'Config name in use (FET-1002)', type: ErrorBody })
  @ApiResponse({ status: 400, description: 'Field problems (with fields), parse failures (with reason and field) and forbidden hosts', type: FieldErrorBody })
  async create(@Req() request: FastifyRequest, @Headers('x-product-name') product: unknown, @Body() body: unknown): Promise<ConnectionResponse> {
    const productName = requireProductName(product);
    const input = readCreateConnection(parseJsonObject(body));
    const created = await this.commands.execute(new CreateConnectionCommand(this.tenant(request), productName, input));
    return connectionResponse(created);
  }

  @Get()
  @Authorize('connections', 'get')
  @ApiOperation({ operationId: 'listConnections', summary: 'List connections (internal datasources first on page 1)' })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: 'Filter on the owning product' })
  @listQueries()
  @ApiQuery({ name: 'type', required: false })
  @ApiQuery({ name: 'host', required: false })
  @ApiQuery({ name: 'databaseName', required: false })
  @ApiResponse({ status: 200, type: ConnectionListResponse })
  list(@Req() request: FastifyRequest, @Headers('x-product-name') product: unknown, @Query() query: Record<string, unknown>): Promise<ConnectionListResponse> {
    const productName = optionalProductName(product);
    const params = readListParams(query, this.config.pagination.maxLimit);
    return this.queries.execute(new ListConnectionsQuery(this.tenant(request), params, productName));
  }

  @Post('validate-schema')
  @Authorize('connections', 'post')
  @HttpCode(200)
  @ApiOperation({ operationId: 'validateSchema', summary: 'Check that datasources, tables and fields exist' })
  @ApiBody({ type: ValidateSchemaRequest })
  @ApiResponse({ status: 200, type: ValidateSchemaResponse })
  @ApiResponse({ status: 422, description: 'Problems found', type: SchemaValidationErrorBody })
  validateSchema(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ValidateSchemaResult> {
    const mapped = readValidateSchema(parseJsonObject(body));
    return this.queries.execute(new ValidateSchemaQuery(this.tenant(request), mapped));
  }

  @Get('unassigned')
  @Authorize('connections', 'get')
  @ApiOperation({ operationId: 'listUnassignedConnections', summary: 'List connections without a product' })
  @listQueries()
  @ApiResponse({ status: 200, type: ConnectionListResponse })
  unassigned(@Req() request: FastifyRequest, @Query() query: Record<string, unknown>): Promise<ConnectionListResponse> {
    const params = readListParams(query, this.config.pagination.maxLimit);
    return this.queries.execute(new ListConnectionsQuery(this.tenant(request), params, undefined, true));
  }

  @Get(':id')
  @Authorize('connections', 'get')
  @ApiOperation({ operationId: 'getConnection', summary: 'Read one connection' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: ConnectionResponse })
  @ApiResponse({ status: 404, description: 'Not found (FET-1001)', type: ErrorBody })
  get(@Req() request: FastifyRequest, @Param('id') id: string): Promise<ConnectionResponse> {
    return this.queries.execute(new GetConnectionQuery(this.tenant(request), requireIdParam(id, 'connection')));
  }

  @Patch(':id')
  @Authorize('connections', 'patch')
  @ApiOperation({ operationId: 'updateConnection', summary: 'Change a connection' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ type: UpdateConnectionRequest })
  @ApiResponse({ status: 200, type: ConnectionResponse })
  @ApiResponse({ status: 404, description: 'Not found (FET-1001)', type: ErrorBody })
  @ApiResponse({ status: 409, description: 'Active jobs (FET-1021) or name in use (FET-1002)', type: ErrorBody })
  async update(@Req() request: FastifyRequest, @Param('id') id: string, @Body() body: unknown): Promise<ConnectionResponse> {
    const connectionId = requireIdParam(id, 'connection');
    const patch = readConnectionPatch(parseJsonObject(body));
    const updated = await this.commands.execute(new UpdateConnectionCommand(this.tenant(request), connectionId, patch));
    return connectionResponse(updated, { echoEmptyMetadata: true });
  }

  @Delete(':id')
  @Authorize('connections', 'delete')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteConnection', summary: 'Delete a connection (soft)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiResponse({ status: 404, description: 'Not found (FET-1001)', type: ErrorBody })
  @ApiResponse({ status: 409, description: 'Active jobs (FET-1021)', type: ErrorBody })
  async remove(@Req() request: FastifyRequest, @Param('id') id: string): Promise<void> {
    await this.commands.execute(new DeleteConnectionCommand(this.tenant(request), requireIdParam(id, 'connection')));
  }

  @Post(':id/test')
  @Authorize('connections', 'post')
  @HttpCode(200)
  @ApiOperation({ operationId: 'testConnection', summary: 'Dial the datasource once (rate limited per connection id, across replicas: 10 tests at once, then one more every 6 seconds)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: TestConnectionResponse })
  @ApiResponse({ status: 429, description: 'Rate limited (numeric code, Retry-After header)', type: NumericErrorBody })
  @ApiResponse({
    status: 500,
    description: 'Database Connection Error (numeric code), with `reason` when the class of failure is known; any other failure answers the internal error body',
    type: NumericErrorBody,
  })
  test(@Req() request: FastifyRequest, @Param('id') id: string): Promise<TestConnectionResult> {
    return this.commands.execute(new TestConnectionCommand(this.tenant(request), requireIdParam(id, 'connection')));
  }

  @Get(':id/schema')
  @Authorize('connections', 'get')
  @ApiOperation({ operationId: 'getConnectionSchema', summary: 'Discover the schema live' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: ConnectionSchemaResponse })
  @ApiResponse({ status: 500, description: 'Database Connection Error (with `reason` when known) or Schema Retrieval Error (numeric code)', type: NumericErrorBody })
  schema(@Req() request: FastifyRequest, @Param('id') id: string): Promise<ConnectionSchemaResponse> {
    return this.queries.execute(new GetConnectionSchemaQuery(this.tenant(request), requireIdParam(id, 'connection')));
  }

  @Post(':id/assign')
  @Authorize('connections', 'post')
  @HttpCode(200)
  @ApiOperation({ operationId: 'assignConnection', summary: 'Give an unassigned connection its product (once)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiHeader(PRODUCT_HEADER)
  @ApiResponse({ status: 200, type: ConnectionResponse })
  @ApiResponse({ status: 409, description: 'Already assigned (FET-1015)', type: ErrorBody })
  async assign(@Req() request: FastifyRequest, @Param('id') id: string, @Headers('x-product-name') product: unknown): Promise<ConnectionResponse> {
    const connectionId = requireIdParam(id, 'connection');
    const productName = requireProductName(product);
    const assigned = await this.commands.execute(new AssignConnectionCommand(this.tenant(request), connectionId, productName));
    return connectionResponse(assigned);
  }

  private tenant(request: FastifyRequest) {
    return requestTenant(this.config.tenancy, request);
  }
}
