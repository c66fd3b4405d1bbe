import type { BsonDocument } from '../bson/bson-values';
import type { CursorRegistry } from '../cursors/cursor-registry';
import type { Storage } from '../storage/storage';

/** What a command handler may use. Everything is in memory, so handlers are synchronous. */
export interface CommandContext {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  /** The command's `$db`. */
  readonly database: string;
  readonly connectionId: number;
  /** Extra `hello` fields the server was started with. */
  readonly helloFields: BsonDocument;
}

/** Returns the reply document, or throws CommandError. */
export type CommandHandler = (command: BsonDocument, context: CommandContext) => BsonDocument;

export type CommandTable = Readonly<Record<string, CommandHandler>>;
