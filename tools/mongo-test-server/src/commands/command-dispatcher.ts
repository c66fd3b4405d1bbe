import type { BsonDocument } from '../bson/bson-values';
import type { CursorRegistry } from '../cursors/cursor-registry';
import type { Storage } from '../storage/storage';
import { adminCommands } from './admin.commands';
import { aggregateCommands } from './aggregate.commands';
import type { CommandHandler } from './command-context';
import { CommandError } from './command-error';
import { collectionCommands } from './collection.commands';
import { cursorCommands } from './cursor.commands';
import { findAndModifyCommands } from './find-and-modify.commands';
import { indexCommands } from './index.commands';
import { readCommands } from './read.commands';
import { refuseUnsupported } from './unsupported-features';
import { writeCommands } from './write.commands';

/** Routes a command document to its handler by its first field name. */
export class CommandDispatcher {
  private readonly handlers = new Map<string, CommandHandler>(Object.entries({
    ...adminCommands, ...collectionCommands, ...readCommands, ...writeCommands, ...findAndModifyCommands,
    ...cursorCommands, ...aggregateCommands, ...indexCommands,
  }));
  private readonly unknown: string[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly cursors: CursorRegistry,
    private readonly helloFields: BsonDocument = {},
  ) {}

  /** Always answers: an unknown command or a failing handler becomes an `ok: 0` reply. */
  dispatch(database: string, command: BsonDocument, connectionId: number): BsonDocument {
    const name = Object.keys(command)[0] ?? '';
    try {
      refuseUnsupported(name, command);
    } catch (error) {
      if (error instanceof CommandError) return error.toReply();
      throw error;
    }
    const handler = this.handlers.get(name);
    if (!handler) {
      this.unknown.push(name);
      return new CommandError('CommandNotFound', `no such command: '${name}'`).toReply();
    }
    try {
      return handler(command, { storage: this.storage, cursors: this.cursors, database, connectionId, helloFields: this.helloFields });
    } catch (error) {
      if (error instanceof CommandError) return error.toReply();
      // A bug in the test server. Answer (without a stack trace) rather than take the process down.
      const detail = error instanceof Error ? error.message : 'unknown failure';
      return new CommandError('InternalError', `test server failed on '${name}': ${detail}`).toReply();
    }
  }

  /** Names of every command that was not recognised, in arrival order. */
  unknownCommands(): readonly string[] {
    return [...this.unknown];
  }
}
