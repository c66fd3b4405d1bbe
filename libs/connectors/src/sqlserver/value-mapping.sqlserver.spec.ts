import { convertRow, isoUtcFromSqlServer, sqlServerConverter } from './value-mapping.sqlserver';

describe('SQL Server value mapping', () => {
  it.each([
    ['bigint', '9223372036854775807', 9223372036854775807n],
    ['bigint', '-9007199254740993', -9007199254740993n],
    ['int', 42, 42],
    ['tinyint', 255, 255],
    ['decimal', '12345678901234567890.123456', '12345678901234567890.123456'],
    ['numeric', '-0.50', '-0.50'],
    ['money', '2500.0000', '2500.0000'],
    ['smallmoney', '-1.2345', '-1.2345'],
    ['float', 0.1, 0.1],
    ['real', 1.5, 1.5],
    ['bit', true, true],
    ['nvarchar', 'Zoë 🚀', 'Zoë 🚀'],
    ['xml', '<a/>', '<a/>'],
    ['uniqueidentifier', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['date', new Date(Date.UTC(2024, 1, 29)), '2024-02-29T00:00:00Z'],
    ['datetime', new Date(Date.UTC(2024, 0, 31, 23, 59, 59, 997)), '2024-01-31T23:59:59.997Z'],
    ['smalldatetime', new Date(Date.UTC(2024, 0, 31, 23, 59)), '2024-01-31T23:59:00Z'],
    ['datetime2', '2024-01-31T23:59:59.1234567', '2024-01-31T23:59:59.1234567Z'],
    ['datetime2', '2024-01-31T23:59:59.1200000', '2024-01-31T23:59:59.12Z'],
    ['datetime2', '2024-01-31T23:59:59', '2024-01-31T23:59:59Z'],
    ['datetimeoffset', '2024-01-31T22:00:00.5000000Z', '2024-01-31T22:00:00.5Z'],
    ['datetimeoffset', '2024-02-01T01:00:00.25+03:00', '2024-01-31T22:00:00.25Z'],
    ['time', '07:30:00.1234567', '07:30:00.1234567'],
  ])('%s %p -> %p', (nativeType, input, expected) => {
    expect(sqlServerConverter(nativeType)(input)).toEqual(expected);
  });

  it('turns binary into a plain Uint8Array and NULL into null for every type', () => {
    expect(sqlServerConverter('varbinary')(Buffer.from([0xde, 0xad]))).toEqual(new Uint8Array([0xde, 0xad]));
    for (const type of ['bigint', 'decimal', 'datetime2', 'date', 'uniqueidentifier', 'varbinary', 'nvarchar']) {
      expect(sqlServerConverter(type)(null)).toBeNull();
    }
  });

  it('keeps text it cannot read as an instant', () => {
    expect(isoUtcFromSqlServer('not a date')).toBe('not a date');
  });

  it('builds a row keyed by the requested names', () => {
    const row = convertRow({ Id: '7', Name: 'x', Extra: 1 }, [
      ['Id', sqlServerConverter('bigint')],
      ['Name', sqlServerConverter('nvarchar')],
    ]);
    expect(row).toEqual({ Id: 7n, Name: 'x' });
  });
});
