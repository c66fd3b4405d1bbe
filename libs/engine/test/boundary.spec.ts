/**
 * The engine's import boundary (the package has no dependencies, see the README): libs/engine/src imports only its own
 * files and node: built-ins that do no I/O. ESLint sees import declarations only; this walks every
 * specifier form with the TypeScript compiler API, including require() and import().
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '..', 'src');
const ALLOWED = /^(\.{1,2}\/|node:)/;
const DOES_IO = /^node:(fs|net|tls|http2?|https|dgram|dns|child_process|cluster|worker_threads|module|vm)(\/|$)/;

/** Every specifier: import/export … from, import x = require(), require(), import(), import('…') types. */
function specifiers(fileName: string, source: string): string[] {
  const found: string[] = [];
  // A specifier that is not a string literal cannot be checked, so it is reported.
  const add = (n: ts.Node | undefined): void => {
    found.push(n && ts.isStringLiteralLike(n) ? n.text : `<computed: ${n?.getText() ?? 'nothing'}>`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || (ts.isExportDeclaration(node) && node.moduleSpecifier)) add(node.moduleSpecifier);
    else if (ts.isExternalModuleReference(node)) add(node.expression);
    else if (ts.isImportTypeNode(node)) add(ts.isLiteralTypeNode(node.argument) ? node.argument.literal : node.argument);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true));
  return found;
}

function violations(fileName: string, source: string): string[] {
  return specifiers(fileName, source).filter((s) => !ALLOWED.test(s) || DOES_IO.test(s));
}

const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !/\.(int-)?spec\.ts$/.test(f));

describe('engine import boundary', () => {
  it('finds the engine sources', () => {
    expect(sources).toEqual(expect.arrayContaining(['engine.ts', 'index.ts', 'memory/index.ts']));
  });

  it.each(sources)('%s imports only relative paths and node: builtins without I/O', (file) => {
    expect(violations(file, readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });

  it('declares no dependencies of any kind', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
      expect(pkg[field] ?? {}).toEqual({});
    }
  });

  it('never reads the process global', () => {
    const offenders = sources.filter((file) => /\bprocess\s*[.[]/.test(readFileSync(join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  describe('the classifier', () => {
    it.each([
      ['an unknown package', "import { Injectable } from '@nestjs/common';"],
      ['a bare package via require()', "const pg = require('pg');"],
      ['a package via dynamic import()', "async function f() { return import('mongodb'); }"],
      ['a package via import = require()', "import amqp = require('amqplib');"],
      ['a package via export from', "export { S3Client } from '@aws-sdk/client-s3';"],
      ['a package in an import() type', "type T = import('ioredis').Redis;"],
      ['a look-alike of a relative path', "import 'apps-engine/x';"],
      ['a builtin without the node: prefix', "import { readFileSync } from 'fs';"],
      ['an I/O builtin', "import { connect } from 'node:net';"],
      ['an I/O builtin sub-path', "import { readFile } from 'node:fs/promises';"],
      ['a computed specifier', "const name = 'pg'; const m = require(name);"],
      ['a computed dynamic import', 'async function f(n: string) { return import(n); }'],
    ])('rejects %s', (_name, source) => {
      expect(violations('probe.ts', source)).not.toEqual([]);
    });

    it.each([
      ['a relative path', "import { EngineError } from './errors';"],
      ['a parent path', "export * from '../models';"],
      ['node:crypto', "import { createHash } from 'node:crypto';"],
      ['a relative require()', "const x = require('./x');"],
    ])('accepts %s', (_name, source) => {
      expect(violations('probe.ts', source)).toEqual([]);
    });

    it('rejects the look-alike apps-engine/ specifier explicitly', () => {
      expect(violations('probe.ts', "import x from 'apps-engine/index';")).toEqual(['apps-engine/index']);
    });
  });
});
