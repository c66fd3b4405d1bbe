import { Errors } from '../errors/catalogue';

const PRODUCT = /^[a-zA-Z0-9_-]+$/;

function headerText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' ? first : undefined;
}

/** `X-Product-Name` where it is required (create, assign): trimmed, lower-cased, checked. */
export function requireProductName(value: unknown): string {
  const text = headerText(value)?.trim() ?? '';
  if (text === '') throw Errors.invalidHeader('X-Product-Name header is required and must not be empty');
  return checked(text);
}

/** `X-Product-Name` as the optional list filter: absent means no filter, blank is refused. */
export function optionalProductName(value: unknown): string | undefined {
  const raw = headerText(value);
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') throw Errors.invalidHeader('X-Product-Name header must not be empty or whitespace-only');
  return checked(text);
}

function checked(text: string): string {
  const product = text.toLowerCase();
  if (product.length > 100) throw Errors.invalidHeader('X-Product-Name must not exceed 100 characters');
  if (!PRODUCT.test(product)) throw Errors.invalidHeader('X-Product-Name can only contain alphanumeric characters, underscores, and hyphens');
  return product;
}
