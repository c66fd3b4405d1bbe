import { isPlainDocument, type BsonDocument } from '../bson/bson-values';
import { compileFilter } from '../query/matcher';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/op-code';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/** The server this one imitates: MongoDB 7.0, wire version 21. */
export const SERVER_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;

const PARAMETERS: BsonDocument = {
  featureCompatibilityVersion: { version: '7.0' },
  requireApiVersion: false,
  transactionLifetimeLimitSeconds: 60,
};

/**
 * The handshake. There is deliberately no `topologyVersion`: without it the driver polls with
 * `hello` instead of holding a streaming (awaitable) hello open on its monitoring connection.
 */
function hello(context: CommandContext, legacy: boolean): BsonDocument {
  return {
    helloOk: true,
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: context.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ...context.helloFields,
    ok: 1,
  };
}

function buildInfo(): BsonDocument {
  return {
    version: SERVER_VERSION,
    gitVersion: 'mongo-test-server',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    storageEngines: ['in-memory'],
    modules: [],
    ok: 1,
  };
}

function getParameter(command: BsonDocument): BsonDocument {
  if (command.getParameter === '*' || (isPlainDocument(command.getParameter) && command.getParameter.allParameters)) {
    return { ...PARAMETERS, ok: 1 };
  }
  const requested = Object.keys(command).filter((key) => key !== 'getParameter' && !key.startsWith('$') && key !== 'lsid');
  const unknown = requested.filter((key) => !(key in PARAMETERS));
  if (requested.length === 0 || unknown.length > 0) {
    throw new CommandError('InvalidOptions', 'no option found to get');
  }
  return { ...Object.fromEntries(requested.map((key) => [key, PARAMETERS[key]])), ok: 1 };
}

function listDatabases(command: BsonDocument, context: CommandContext): BsonDocument {
  const matches = compileFilter(command.filter);
  const databases = context.storage.databaseNames()
    .map((name) => ({ name, sizeOnDisk: 0, empty: false }))
    .filter((entry) => matches(entry));
  return {
    databases: command.nameOnly ? databases.map(({ name }) => ({ name })) : databases,
    totalSize: 0,
    totalSizeMb: 0,
    ok: 1,
  };
}

const ok = (): BsonDocument => ({ ok: 1 });

export const adminCommands: CommandTable = {
  hello: (_command, context) => hello(context, false),
  isMaster: (_command, context) => hello(context, true),
  ismaster: (_command, context) => hello(context, true),
  ping: ok,
  buildInfo,
  buildinfo: buildInfo,
  getParameter,
  listDatabases,
  endSessions: ok,
};
