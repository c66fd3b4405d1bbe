import { MYSQL_DIALECT, ORACLE_DIALECT, POSTGRES_DIALECT, SQLSERVER_DIALECT, qualifiedName } from './dialect';

describe('SQL dialects', () => {
  it('quotes PostgreSQL names with double quotes and doubles embedded ones', () => {
    expect(POSTGRES_DIALECT.quoteIdentifier('MixedCase')).toBe('"MixedCase"');
    expect(POSTGRES_DIALECT.quoteIdentifier('a"b')).toBe('"a""b"');
    expect(POSTGRES_DIALECT.quoteIdentifier('x"; DROP TABLE t; --')).toBe('"x""; DROP TABLE t; --"');
  });

  it('quotes MySQL names with backticks and doubles embedded ones', () => {
    expect(MYSQL_DIALECT.quoteIdentifier('Order')).toBe('`Order`');
    expect(MYSQL_DIALECT.quoteIdentifier('a`b``c')).toBe('`a``b````c`');
  });

  it('quotes SQL Server names with brackets and doubles the closing one', () => {
    expect(SQLSERVER_DIALECT.quoteIdentifier('Order Lines')).toBe('[Order Lines]');
    expect(SQLSERVER_DIALECT.quoteIdentifier('a]b[c')).toBe('[a]]b[c]');
    expect(SQLSERVER_DIALECT.quoteIdentifier(']]')).toBe('[]]]]]');
  });

  it('quotes Oracle names as given, keeping the catalog case', () => {
    expect(ORACLE_DIALECT.quoteIdentifier('Employees')).toBe('"Employees"');
    expect(ORACLE_DIALECT.quoteIdentifier('A"B')).toBe('"A""B"');
  });

  it('numbers placeholders per dialect', () => {
    expect([1, 2, 10].map((p) => POSTGRES_DIALECT.placeholder(p))).toEqual(['$1', '$2', '$10']);
    expect([1, 2, 10].map((p) => MYSQL_DIALECT.placeholder(p))).toEqual(['?', '?', '?']);
    expect([1, 2, 10].map((p) => SQLSERVER_DIALECT.placeholder(p))).toEqual(['@p1', '@p2', '@p10']);
    expect([1, 2, 10].map((p) => ORACLE_DIALECT.placeholder(p))).toEqual([':1', ':2', ':10']);
  });

  it('qualifies a table with its schema only when there is one', () => {
    expect(qualifiedName(POSTGRES_DIALECT, 'Sales', 'Orders')).toBe('"Sales"."Orders"');
    expect(qualifiedName(SQLSERVER_DIALECT, 'dbo', 'x]')).toBe('[dbo].[x]]]');
    expect(qualifiedName(MYSQL_DIALECT, undefined, 'users')).toBe('`users`');
    expect(qualifiedName(ORACLE_DIALECT, '', 'T')).toBe('"T"');
  });
});
