/** The engine instance built in the composition root (`createEngine` wired with the adapters). */
export const ENGINE = Symbol('Engine');
