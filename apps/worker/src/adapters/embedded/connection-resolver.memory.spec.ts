import type { StoredConnection } from '@fetcher/contracts';
import { connectionResolverContract } from '../../testing/connection-resolver.contract';
import { MemoryConnectionResolver } from './connection-resolver.memory';

describe(MemoryConnectionResolver.name, () => {
  describe('the connection resolver contract', () => {
    // The embedded Manager's repository hands out live records only; a deleted one is simply not among them.
    connectionResolverContract(({ ring, internal }) => {
      const records: StoredConnection[] = [];
      return {
        resolver: new MemoryConnectionResolver({ live: () => [...records] }, ring, internal),
        store: (connection, options) => {
          if (!options?.deleted) records.push(connection);
          return Promise.resolve();
        },
      };
    });
  });
});
