import type { FilterCondition } from '@fetcher/engine';

/** datasource -> table -> field -> condition, after the Manager's clean-up of unknown operators and empty lists. */
export type JobFilters = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, FilterCondition>>>>>>;
