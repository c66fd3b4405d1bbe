/** The methods of a port: what a fault can be put on. */
export type MethodOf<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T] & string;

type ArgsOf<T, M extends MethodOf<T>> = T[M] extends (...args: infer A) => unknown ? A : never;

/** The error a faulty call rejects with; a function builds a fresh one per call. */
export type Fault = Error | (() => Error);

/** Which calls of the wrapped adapter fail, changed while the spec runs. */
export interface FaultControl<T> {
  /** The next `times` calls of `method` reject with `fault`; later calls reach the adapter. */
  failNext<M extends MethodOf<T>>(method: M, fault: Fault, times?: number): void;
  /** Every call of `method` rejects with `fault`, until `heal`. */
  failAlways<M extends MethodOf<T>>(method: M, fault: Fault): void;
  /** The calls of `method` whose arguments `when` accepts reject with `fault`, until `heal`. */
  failWhen<M extends MethodOf<T>>(method: M, when: (...args: ArgsOf<T, M>) => boolean, fault: Fault): void;
  /** Removes the faults of `method`, or all of them. */
  heal(method?: MethodOf<T>): void;
}

export type WithFaults<T> = T & { readonly faults: FaultControl<T> };

interface Rule {
  readonly when: (...args: unknown[]) => boolean;
  readonly fault: Fault;
  left: number;
}

/**
 * Fault injection around a working adapter (in the specs, the embedded one): the wrapper is the
 * adapter, except that the calls a rule picks reject, asynchronously as an outage would, without
 * reaching it. Everything else, and every call no rule picks, goes to the adapter itself, so the
 * behaviour under test stays the real one, as the port's contract suite checks it.
 */
export function withFaults<T extends object>(adapter: T): WithFaults<T> {
  const rules = new Map<string, Rule[]>();
  const add = (method: string, rule: Rule) => rules.set(method, [...(rules.get(method) ?? []), rule]);
  const control: FaultControl<T> = {
    failNext: (method, fault, times = 1) => add(method, { when: () => true, fault, left: times }),
    failAlways: (method, fault) => add(method, { when: () => true, fault, left: Infinity }),
    failWhen: (method, when, fault) => add(method, { when: when as (...args: unknown[]) => boolean, fault, left: Infinity }),
    heal: (method) => (method === undefined ? rules.clear() : rules.delete(method)),
  };
  const firing = (method: string, args: unknown[]): Error | undefined => {
    const rule = rules.get(method)?.find((r) => r.left > 0 && r.when(...args));
    if (!rule) return undefined;
    rule.left -= 1;
    return typeof rule.fault === 'function' ? rule.fault() : rule.fault;
  };
  return new Proxy(adapter, {
    get(target, property, _receiver) {
      if (property === 'faults') return control;
      // The adapter is `this` for its own methods and getters (its #private fields need it).
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const fault = firing(property, args);
        return fault ? Promise.reject(fault) : method.apply(target, args);
      };
    },
    set(target, property, value) {
      return Reflect.set(target, property, value, target);
    },
  }) as WithFaults<T>;
}
