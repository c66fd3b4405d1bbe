/** SchemaCache in memory: a map, no TTL; knobs make reads or writes fail. */
import type { SchemaSnapshot, TenantContext } from '../models';
import type { SchemaCache } from '../ports';
import { attempt, tenantKey, throwKnob, type Knob } from './harness-support';

export class MemorySchemaCache implements SchemaCache {
  getErr: Knob = undefined;
  putErr: Knob = undefined;
  getCount = 0;
  putCount = 0;
  readonly #snapshots = new Map<string, SchemaSnapshot>();

  getSchema(tenant: TenantContext, configName: string): Promise<SchemaSnapshot | undefined> {
    return attempt(() => {
      this.getCount++;
      throwKnob(this.getErr, () => new Error('schema cache read failed'));
      return this.#snapshots.get(tenantKey(tenant, configName));
    });
  }

  putSchema(tenant: TenantContext, snapshot: SchemaSnapshot): Promise<void> {
    return attempt(() => {
      this.putCount++;
      throwKnob(this.putErr, () => new Error('schema cache write failed'));
      this.#snapshots.set(tenantKey(tenant, snapshot.configName), snapshot);
    });
  }

  /** Direct read for assertions, without counting. */
  peek(tenant: TenantContext, configName: string): SchemaSnapshot | undefined {
    return this.#snapshots.get(tenantKey(tenant, configName));
  }
}
