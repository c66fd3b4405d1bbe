import type { ArgumentsHost } from '@nestjs/common';
import { HttpException, NotFoundException } from '@nestjs/common';
import { EngineError } from '@fetcher/engine';
import { Errors } from '../errors/catalogue';
import { ErrorFilter } from './error.filter';

describe(ErrorFilter.name, () => {
  const sut = new ErrorFilter();
  const E8 = {
    title: 'Internal Server Error',
    message: 'The server encountered an unexpected error. Please try again later or contact support.',
    code: 'FET-0002',
  };

  it.each([
    [Errors.parseFailed(), 400, { code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body' }],
    [Errors.parseFailed('wrong_type', 'port'), 400, { code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body', reason: 'wrong_type', field: 'port' }],
    [Errors.entityNotFound('job'), 404, { code: 'FET-1001', title: 'Entity Not Found', message: expect.stringContaining('job entity') }],
    [Errors.connectionConflict(), 409, expect.objectContaining({ code: 'FET-1002' })],
    [Errors.jobInProgress('delete'), 409, { code: 'FET-1021', title: 'Job In Progress', message: 'cannot delete connection with active jobs' }],
    [Errors.serviceUnavailable(), 503, expect.objectContaining({ code: 'FET-0003', title: 'Service Unavailable' })],
    [Errors.validationLimitExceeded('x'), 400, { code: 'FET-1061', title: 'Validation Limit Exceeded', message: 'x' }],
    [Errors.connectionNotAssigned('crm'), 400, expect.objectContaining({ code: 'FET-1014' })],
    [Errors.noConnectionsForValidation(), 400, expect.objectContaining({ code: 'FET-1062' })],
    [Errors.internal(), 500, E8],
    [Errors.rateLimited(4), 429, { code: 429, title: 'Rate Limit Exceeded', message: 'Connection test limit reached. Try again in 4 seconds.' }],
    [Errors.databaseConnectionError(), 500, expect.objectContaining({ code: 500, title: 'Database Connection Error' })],
    [Errors.databaseConnectionError('tls'), 500, {
      code: 500,
      title: 'Database Connection Error',
      message: 'The adapter failed to connect to the target data source. Check credentials and network access.',
      reason: 'tls',
    }],
    [Errors.missingToken(), 401, { code: 'MISSING_TOKEN', title: 'Unauthorized', message: 'Authorization token is required' }],
    [Errors.invalidToken(), 401, { code: 'INVALID_TOKEN', title: 'Unauthorized', message: 'Authorization token is invalid' }],
    [Errors.missingTenant(), 401, { code: 'MISSING_TENANT', title: 'Unauthorized', message: 'tenantId is required in JWT token' }],
    [Errors.invalidTenant(), 401, { code: 'INVALID_TENANT', title: 'Unauthorized', message: 'tenantId has an invalid format' }],
    [Errors.tokenKeysUnavailable(), 503, expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable' })],
    [Errors.schemaRetrievalError(), 500, { code: 500, title: 'Schema Retrieval Error', message: 'Failed to retrieve database schema information.' }],
    [Errors.schemaValidationFailed([{ type: 'DATA_SOURCE_NOT_FOUND', dataSourceId: 'x' }]), 422, {
      title: 'Schema validation failed',
      code: 'FET-1060',
      message: 'Schema validation found inconsistencies.',
      errors: [{ type: 'DATA_SOURCE_NOT_FOUND', dataSourceId: 'x' }],
    }],
  ])('renders %s with its status and body', (error, status, body) => {
    const rendered = sut.render(error);
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual(body);
  });

  it('adds Retry-After to a rate-limit answer', () => {
    expect(sut.render(Errors.rateLimited(6)).headers).toEqual({ 'Retry-After': '6' });
  });

  it('renders E2 with entityType only for the domain pass and the required problems alone', () => {
    const required = Errors.fieldProblems([{ field: 'a', message: 'a is required', required: true }, { field: 'b', message: 'b bad', required: false }], 'connection');
    expect(sut.render(required).body).toEqual({
      entityType: 'connection',
      title: 'Missing Fields in Request',
      code: 'FET-0402',
      message: 'Some required fields are missing. Please check the listed fields and try again.',
      fields: { a: 'a is required' },
    });
    expect(sut.render(Errors.fieldProblems([{ field: 'b', message: 'b bad', required: false }])).body).toEqual({
      title: 'Bad Request',
      code: 'FET-0001',
      message: 'Some fields have invalid values. Please check the listed fields and try again.',
      fields: { b: 'b bad' },
    });
  });

  it('renders framework errors as E4 and the body limit as 413', () => {
    expect(sut.render(new NotFoundException('Cannot GET /x'))).toEqual({ status: 404, headers: {}, body: { code: 404, title: 'request_failed', message: 'Cannot GET /x' } });
    expect(sut.render(new HttpException('too big', 413)).body).toEqual({ code: 413, title: 'request_failed', message: 'Request Entity Too Large' });
    expect(sut.render(new HttpException('bad', 415)).body).toMatchObject({ code: 'FET-0001' });
  });

  it('names an unknown route by its method and path, never its query string (tokens travel there)', () => {
    const error = new NotFoundException('Cannot GET /x?token=s3cret');
    expect(sut.render(error, { method: 'GET', url: '/x?token=s3cret#f' }).body).toEqual({ code: 404, title: 'request_failed', message: 'Cannot GET /x' });
    expect(sut.render(error, { method: 'DELETE', url: '/a/%ZZ' }).body).toMatchObject({ message: 'Cannot DELETE /a/%ZZ' });
  });

  it('answers anything untranslated with E8 and never its message', () => {
    for (const error of [new Error('mongodb://user:secret@host failed'), new EngineError('unavailable', 'x', new Error('dsn')), 'text', undefined]) {
      const rendered = sut.render(error);
      expect(rendered).toEqual({ status: 500, headers: {}, body: E8 });
    }
  });
});

describe(`${ErrorFilter.name} when logging fails`, () => {
  it('still answers E8 for an unexpected error, whatever the logger does', () => {
    const sut = new ErrorFilter();
    Object.defineProperty(sut, 'logger', { value: { error: () => { throw new TypeError("Cannot read properties of undefined (reading 'replace')"); } } });
    const sent: { status?: number; body?: string } = {};
    const reply = {
      sent: false,
      header: () => reply,
      status: (status: number) => { sent.status = status; return reply; },
      send: (body: string) => { sent.body = body; return reply; },
    };
    const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ method: 'GET', url: '/x' }) }) } as unknown as ArgumentsHost;
    sut.catch(new Error('boom'), host);
    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body!)).toEqual({
      title: 'Internal Server Error',
      message: 'The server encountered an unexpected error. Please try again later or contact support.',
      code: 'FET-0002',
    });
  });
});
