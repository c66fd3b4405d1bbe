import { AssignConnectionHandler } from './commands/assign-connection.handler';
import { CreateConnectionHandler } from './commands/create-connection.handler';
import { DeleteConnectionHandler } from './commands/delete-connection.handler';
import { TestConnectionHandler } from './commands/test-connection.handler';
import { UpdateConnectionHandler } from './commands/update-connection.handler';
import { ConnectionDirectory } from './connection-directory';
import { ConnectionsController } from './connections.controller';
import { HostLiteralCheck } from './host-literal-check';
import { GetConnectionSchemaHandler } from './queries/get-connection-schema.handler';
import { GetConnectionHandler } from './queries/get-connection.handler';
import { ListConnectionsHandler } from './queries/list-connections.handler';
import { ValidateSchemaHandler } from './queries/validate-schema.handler';

/** The connections feature as the composition root mounts it: controllers and handlers, no bindings. */
export const CONNECTION_CONTROLLERS = [ConnectionsController];
export const CONNECTION_HANDLERS = [
  CreateConnectionHandler,
  UpdateConnectionHandler,
  DeleteConnectionHandler,
  TestConnectionHandler,
  AssignConnectionHandler,
  GetConnectionHandler,
  ListConnectionsHandler,
  GetConnectionSchemaHandler,
  ValidateSchemaHandler,
  ConnectionDirectory,
  HostLiteralCheck,
];
