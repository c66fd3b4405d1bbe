/** The service that creates an index at startup (or on first use). Each index has exactly one. */
export type IndexOwner = 'manager' | 'worker';

/** An index as `createIndex` takes it; names and options are part of the contract with operators. */
export interface IndexSpec {
  readonly name: string;
  readonly key: Readonly<Record<string, 1 | -1>>;
  readonly owner: IndexOwner;
  readonly unique?: boolean;
  readonly partialFilterExpression?: Readonly<Record<string, unknown>>;
}

/** The indexes of `list` that `owner` creates. */
export function indexesOwnedBy(owner: IndexOwner, list: readonly IndexSpec[]): IndexSpec[] {
  return list.filter((index) => index.owner === owner);
}

/** `createIndex` arguments: the key and the options, without the owner (copies: the driver may annotate them). */
export function createIndexArgs(index: IndexSpec): [Record<string, 1 | -1>, { name: string; unique?: boolean; partialFilterExpression?: Record<string, unknown> }] {
  const { key, owner: _owner, ...options } = index;
  return [
    { ...key },
    {
      name: options.name,
      ...(options.unique === undefined ? {} : { unique: options.unique }),
      ...(options.partialFilterExpression ? { partialFilterExpression: { ...options.partialFilterExpression } } : {}),
    },
  ];
}
