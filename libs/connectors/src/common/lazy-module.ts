/**
 * A module loaded on first use and kept. The datasource drivers (pg, mysql2, mssql/tedious,
 * oracledb, mongodb) weigh tens of MiB of memory together; a host that dials one type should not
 * carry the other four. `load` is a `require()` of the connector module, typed with
 * `typeof import(...)`, so types stay checked while the code loads lazily.
 */
export function lazyModule<T>(load: () => T): () => T {
  let loaded: { readonly value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}
