/** Helpers for the runner's unit tests. */
import { createHash } from 'node:crypto';
import { EngineError, type CursorItem, type ExtractionPlan } from '../index';
import { TemplateConnector, eagerCursor } from '../memory';
import { TENANT, type World } from './engine-fixture';

export const bytes = (s: string): number => new TextEncoder().encode(s).length;
export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export const USERS_DOC = '{"crm":{"users":[{"active":true,"id":1,"name":"Ada"},{"active":false,"id":2,"name":"Linus"}]}}';

export async function planUsers(world: World, overrides?: Record<string, number>): Promise<ExtractionPlan> {
  return world.engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['*'] } }, ...(overrides ? { overrides } : {}) });
}

/** Replaces the `memory` connector (after planning) with one whose cursor yields `items`, then throws `failWith`. */
export function scripted(world: World, items: readonly CursorItem[], failWith?: Error): TemplateConnector[] {
  const built: TemplateConnector[] = [];
  world.registry.register('memory', {
    build: (descriptor) => {
      const connector = new TemplateConnector({}, descriptor);
      connector.queryStream = () => {
        const cursor = eagerCursor({});
        let i = 0;
        const next = (): Promise<CursorItem | null> => {
          if (i < items.length) return Promise.resolve(items[i++]);
          return failWith !== undefined ? Promise.reject(failWith) : Promise.resolve(null);
        };
        return Promise.resolve({ next, close: () => cursor.close() });
      };
      built.push(connector);
      return connector;
    },
  });
  return built;
}

export async function failure(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw new Error(`expected an EngineError, got ${String(error)}`);
  }
  throw new Error('expected a rejection');
}

