import oracledb from 'oracledb';
import { JsonNumber } from '@fetcher/engine';
import { oracleConverter, oracleDecimal, oracleFetchTypeHandler, oracleInteger } from './value-mapping.oracle';

const meta = (dbType: oracledb.DbType, scale?: number) => ({ name: 'C', dbType, scale, precision: 0 }) as never;

describe('Oracle value mapping', () => {
  it('fetches NUMBER as text: scale 0 as an exact integer, otherwise the decimal text', () => {
    const integer = oracleFetchTypeHandler(meta(oracledb.DB_TYPE_NUMBER, 0));
    expect(integer?.type).toBe(oracledb.STRING);
    expect(integer?.converter?.('99999999999999999999999999999999999999')).toBe(99999999999999999999999999999999999999n);
    const decimal = oracleFetchTypeHandler(meta(oracledb.DB_TYPE_NUMBER, 2));
    expect(decimal?.type).toBe(oracledb.STRING);
    expect(decimal?.converter?.('-.5')).toBe('-0.5');
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_NUMBER, -127))?.converter?.('1.1')).toBe('1.1');
  });

  it('fetches LOBs inline: CLOB/NCLOB as strings, BLOB as bytes', () => {
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_CLOB))).toEqual({ type: oracledb.STRING });
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_NCLOB))).toEqual({ type: oracledb.STRING });
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_BLOB))).toEqual({ type: oracledb.BUFFER });
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_VARCHAR))).toBeUndefined();
    expect(oracleFetchTypeHandler(meta(oracledb.DB_TYPE_BINARY_DOUBLE))).toBeUndefined();
  });

  it('keeps NULL as null and odd integer text as text', () => {
    expect(oracleInteger(null)).toBeNull();
    expect(oracleDecimal(null)).toBeNull();
    expect(oracleInteger('1e126')).toBe('1e126');
    expect(oracleDecimal('12.50')).toBe('12.50');
    expect(oracleDecimal('.001')).toBe('0.001');
  });

  it.each([
    ['DATE', '2024-01-31T23:59:59', '2024-01-31T23:59:59Z'],
    ['TIMESTAMP(9)', '2024-01-31T23:59:59.123456789', '2024-01-31T23:59:59.123456789Z'],
    ['TIMESTAMP(6)', '2024-01-31T23:59:59.120000000', '2024-01-31T23:59:59.12Z'],
    ['TIMESTAMP(6) WITH TIME ZONE', '2024-01-31T22:00:00.000000000', '2024-01-31T22:00:00Z'],
    ['VARCHAR2', 'Zoë 🚀', 'Zoë 🚀'],
    ['BINARY_DOUBLE', 0.1, 0.1],
    ['ROWID', 'AAAR3sAAEAAAACXAAA', 'AAAR3sAAEAAAACXAAA'],
  ])('%s %p -> %p', (nativeType, input, expected) => {
    expect(oracleConverter(nativeType)(input)).toEqual(expected);
  });

  it('parses JSON text without losing numbers', () => {
    expect(oracleConverter('JSON')('{"n":12345678901234567890,"f":1.10}')).toEqual({
      n: new JsonNumber('12345678901234567890'),
      f: new JsonNumber('1.10'),
    });
  });

  it('turns RAW/BLOB buffers into plain bytes and NULL into null', () => {
    expect(oracleConverter('RAW')(Buffer.from([0xca, 0xfe]))).toEqual(new Uint8Array([0xca, 0xfe]));
    for (const type of ['DATE', 'JSON', 'RAW', 'VARCHAR2']) expect(oracleConverter(type)(null)).toBeNull();
  });
});
