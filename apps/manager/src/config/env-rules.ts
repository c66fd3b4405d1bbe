import { z } from 'zod';

/** `true/false/1/0/t/f` in any case; blank values never reach the schema (they count as unset). */
export const envBoolean = (fallback: boolean) =>
  z
    .stringbool({ truthy: ['true', 't', '1'], falsy: ['false', 'f', '0'], case: 'insensitive' })
    .default(fallback);

export const envInteger = (options: { min?: number; max?: number; fallback: number }) => {
  let rule = z.coerce.number({ error: 'must be an integer' }).int('must be an integer');
  if (options.min !== undefined) rule = rule.min(options.min, `must be ${options.min} or greater`);
  if (options.max !== undefined) rule = rule.max(options.max, `must be ${options.max} or less`);
  return rule.default(options.fallback);
};

/** An absolute URL with one of the protocols and a host, and no `user:pass@` part. */
export const envEndpointUrl = (protocols: readonly string[]) =>
  z.string().refine((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return false;
    }
    return protocols.includes(url.protocol.replace(/:$/, '')) && url.hostname !== '' && url.username === '' && url.password === '';
  }, `must be a ${protocols.join(' or ')} URL with a host and without credentials`);
