import type { ConnectionResolver, ResolvedConnection } from '../ports/connection-resolver.port';

/** Answers from a fixed list; `failWith` makes resolve reject. */
export class StaticConnectionResolver implements ConnectionResolver {
  failWith: Error | undefined;
  constructor(private readonly connections: readonly ResolvedConnection[]) {}

  resolve(names: readonly string[]): Promise<ResolvedConnection[]> {
    if (this.failWith) return Promise.reject(this.failWith);
    return Promise.resolve(this.connections.filter((c) => names.includes(c.descriptor.configName)));
  }
}
