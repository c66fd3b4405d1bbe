import type { ConnectionDescriptor } from '@fetcher/engine';

/** The MongoDB descriptor the unit specs start from; nothing is dialled with it. */
export function mongoDescriptor(overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor {
  return {
    configName: 'crm',
    type: 'MONGODB',
    host: 'db.example.com',
    port: 27017,
    databaseName: 'crm',
    userName: 'reader',
    ...overrides,
  };
}
