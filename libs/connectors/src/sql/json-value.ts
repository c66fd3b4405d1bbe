import { JsonNumber, type JsonValue } from '@fetcher/engine';
import { parse } from 'lossless-json';

/**
 * A JSON column's text as a JsonValue without losing numbers: every
 * numeric literal stays a JsonNumber with its exact text, so `12345678901234567890` and `1.10`
 * survive. Duplicate keys keep the last value, as JSON.parse does. Text that is not JSON (a column
 * without a validity check) is returned as the string it is rather than failing the whole job.
 */
export function parseJsonColumn(text: string): JsonValue {
  try {
    return parse(text, null, {
      parseNumber: (literal: string) => new JsonNumber(literal),
      onDuplicateKey: ({ newValue }) => newValue,
    }) as JsonValue;
  } catch (error) {
    if (error instanceof SyntaxError) return text;
    throw error;
  }
}
