import { DEMO_ROW_COUNTS, DEMO_SCHEMA } from './demo/demo-seed';
import type { DemoDatabaseAddress } from './demo/demo-database';

export interface BannerFacts {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly keyOrigin: string;
  /** Whether the operator console is served (its URL is then the first line). */
  readonly console?: boolean;
  readonly demo?: DemoDatabaseAddress;
  readonly startupMs: number;
  /** Whether the CLI, run from the same directory, finds the data directory without being told. */
  readonly defaultDataDir: boolean;
}

/** The JSON body of the sample job: two demo tables, some of their fields. */
export const SAMPLE_JOB_BODY = JSON.stringify({
  dataRequest: { mappedFields: { demo: { 'shop.customers': ['id', 'name', 'country'], 'shop.orders': ['id', 'customer_id', 'total', 'status'] } } },
  metadata: { source: 'demo' },
});

/** What the service prints once it answers: where to look, and a sequence to paste. */
export function banner(facts: BannerFacts): string {
  const { baseUrl } = facts;
  const lines = [
    '',
    `Fetcher is running in standalone mode (ready in ${(facts.startupMs / 1000).toFixed(1)} s)`,
    '',
    // Only URLs that answer a GET: the API has no page at /v1 itself, so its description is named.
    ...(facts.console ? [`  Console      ${baseUrl}/console/`] : []),
    `  Swagger UI   ${baseUrl}/swagger`,
    `  OpenAPI      ${baseUrl}/swagger/doc.json`,
    `  Health       ${baseUrl}/health   ${baseUrl}/readyz   ${baseUrl}/metrics`,
    `  Data         ${facts.dataDir} (master key: ${facts.keyOrigin})`,
  ];
  if (facts.demo) {
    const { host, port, user, database } = facts.demo;
    lines.push(
      `  Demo DB      postgresql://${user}@${host}:${port}/${database}, schema ${DEMO_SCHEMA}: customers (${DEMO_ROW_COUNTS.customers}), products (${DEMO_ROW_COUNTS.products}), orders (${DEMO_ROW_COUNTS.orders})`,
      '',
      'Try it:',
      '  # the demo connection of the product "demo"',
      `  curl -s -H 'X-Product-Name: demo' ${baseUrl}/v1/management/connections`,
      '  # extract two tables; the answer carries the jobId',
      `  curl -s -X POST ${baseUrl}/v1/fetcher -H 'Content-Type: application/json' -d '${SAMPLE_JOB_BODY}'`,
      '  # poll until "status":"completed"',
      `  curl -s ${baseUrl}/v1/fetcher/<jobId>`,
      '  # decrypt the result and check its HMAC',
      `  ${facts.defaultDataDir ? '' : `FETCHER_DATA_DIR=${facts.dataDir} `}npx fetcher result decrypt <jobId>`,
    );
  }
  lines.push('', 'Stop with Ctrl-C; connections, jobs and results stay in the data directory.', '');
  return lines.join('\n');
}
