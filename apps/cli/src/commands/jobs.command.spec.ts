import { runCli } from '../cli';
import { EXIT } from '../cli-error';
import { loadCliConfig } from '../config/cli.config';
import { capturedIo } from '../testing/captured-io';

const ID = '0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b';
const job = (id: string, status = 'failed') => ({ id, status, createdAt: '2026-03-01T00:00:00.000Z', metadata: { source: 'reporter' }, mappedFields: {} });

/** A fake Manager: answers each request from `answers` in turn and records what it was asked. */
function fakeManager(answers: { status: number; body: unknown }[]) {
  const requests: { url: string; method: string; headers: Record<string, string> }[] = [];
  const fake = (async (url: string, init?: RequestInit) => {
    requests.push({ url, method: init?.method ?? 'GET', headers: (init?.headers ?? {}) as Record<string, string> });
    const answer = answers.shift();
    if (!answer) throw new TypeError('fetch failed');
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fake, requests };
}

async function run(argv: string[], answers: { status: number; body: unknown }[], env: Record<string, string> = {}) {
  const manager = fakeManager(answers);
  const io = { ...capturedIo(), fetch: manager.fake };
  const code = await runCli(argv, () => loadCliConfig({ FETCHER_MANAGER_URL: 'http://manager.test:4006', ...env }, '/tmp'), io);
  return { code, out: io.out(), err: io.err(), requests: manager.requests };
}

describe('fetcher jobs', () => {
  it('lists one page with the filters as query parameters, and names the next cursor on stderr', async () => {
    const res = await run(
      ['jobs', 'list', '--status', 'failed,canceled', '--from', '2026-03-01', '--config-name', 'pg-main', '--limit', '2', '--product', 'reporter'],
      [{ status: 200, body: { items: [job(ID)], nextCursor: 'abc' } }],
      { FETCHER_MANAGER_TOKEN: 'tok' },
    );
    expect(res.code).toBe(EXIT.ok);
    expect(res.out).toBe(`${ID}  failed      2026-03-01T00:00:00.000Z  reporter\n`);
    expect(res.err).toBe('next page: --cursor abc\n');
    expect(res.requests).toEqual([
      {
        url: 'http://manager.test:4006/v1/fetcher?status=failed%2Ccanceled&createdFrom=2026-03-01&configName=pg-main&limit=2',
        method: 'GET',
        headers: { accept: 'application/json', authorization: 'Bearer tok', 'x-product-name': 'reporter' },
      },
    ]);
  });

  it("shows a completed incremental job's cursors as compact JSON at the end of its line", async () => {
    const cursors = { 'pg-main': { orders: { value: '2026-03-01T10:00:00Z', key: '4711' }, empty: null } };
    const res = await run(['jobs', 'list'], [{ status: 200, body: { items: [{ ...job(ID, 'completed'), cursors }] } }]);
    expect(res.out).toBe(`${ID}  completed   2026-03-01T00:00:00.000Z  reporter  cursors=${JSON.stringify(cursors)}\n`);
  });

  it('follows every cursor with --all', async () => {
    const res = await run(['jobs', 'list', '--all', '--json'], [
      { status: 200, body: { items: [job(ID)], nextCursor: 'c1' } },
      { status: 200, body: { items: [] } },
    ]);
    expect(res.code).toBe(EXIT.ok);
    expect(res.out.trim().split('\n')).toHaveLength(2);
    expect(res.requests[1].url).toBe('http://manager.test:4006/v1/fetcher?cursor=c1');
  });

  it('cancels a job and says whether it is canceled or stopping', async () => {
    const pending = await run(['jobs', 'cancel', ID], [{ status: 200, body: job(ID, 'canceled') }]);
    expect(pending).toMatchObject({ code: EXIT.ok, out: `${ID} canceled\n` });
    expect(pending.requests[0]).toMatchObject({ url: `http://manager.test:4006/v1/fetcher/${ID}/cancel`, method: 'POST' });
    const running = await run(['jobs', 'cancel', ID, '--manager-url', 'http://other:1/'], [{ status: 202, body: job(ID, 'processing') }]);
    expect(running.out).toBe(`${ID} stopping (cancel requested; the Worker writes canceled)\n`);
    expect(running.requests[0].url).toBe(`http://other:1/v1/fetcher/${ID}/cancel`);
  });

  it("reports the Manager's refusal with its code and exits 3", async () => {
    const res = await run(['jobs', 'cancel', ID], [
      { status: 409, body: { code: 'FET-1022', title: 'Job Not Cancelable', message: 'The job is already completed and cannot be canceled.' } },
    ]);
    expect(res.code).toBe(EXIT.failure);
    expect(res.err).toBe('fetcher: the Manager answered 409 FET-1022: The job is already completed and cannot be canceled.\n');
  });

  it('exits 3 when the Manager cannot be reached, and 2 on usage errors', async () => {
    expect(await run(['jobs', 'list'], [])).toMatchObject({ code: EXIT.failure, err: 'fetcher: cannot reach the Manager (check --manager-url or FETCHER_MANAGER_URL)\n' });
    expect((await run(['jobs', 'cancel'], [])).code).toBe(EXIT.usage);
    expect((await run(['jobs', 'list', '--manager-url', 'ftp://x'], [])).code).toBe(EXIT.usage);
    expect((await run(['jobs'], [])).err).toContain('give a sub-command: list, cancel');
  });
});
