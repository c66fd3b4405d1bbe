/**
 * Vega-Lite specifications rendered to SVG in Node (vega's headless view, no browser, no canvas):
 * the report's plots. Each function returns the SVG text.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

const WIDTH = 560;
const HEIGHT = 280;

async function render(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Histogram of small-job latencies with the p50/p99 and their targets as rules. */
export function latencyHistogram(latenciesMs: readonly number[], marks: { label: string; ms: number }[]): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Small jobs: POST /v1/fetcher -> completed',
    width: WIDTH, height: HEIGHT, background: 'white',
    layer: [
      {
        data: { values: latenciesMs.map((ms) => ({ ms })) },
        mark: 'bar',
        encoding: {
          x: { field: 'ms', type: 'quantitative', bin: { maxbins: 40 }, title: 'latency (ms)' },
          y: { aggregate: 'count', type: 'quantitative', title: 'jobs' },
        },
      },
      {
        data: { values: marks },
        mark: { type: 'rule', strokeWidth: 2, strokeDash: [4, 3] },
        encoding: { x: { field: 'ms', type: 'quantitative' }, color: { field: 'label', type: 'nominal', title: null, legend: { labelLimit: 300 } } },
      },
    ],
  });
}

/** One line per series against the row count (log scale), with optional horizontal limits. */
export function againstRows(
  title: string, yTitle: string, points: { rows: number; value: number; series: string }[], limits: { label: string; value: number }[] = [],
): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title, width: WIDTH, height: HEIGHT, background: 'white',
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'rows', type: 'quantitative', scale: { type: 'log' }, title: 'rows' },
          y: { field: 'value', type: 'quantitative', title: yTitle },
          color: { field: 'series', type: 'nominal', title: null, legend: { labelLimit: 300 } },
        },
      },
      ...(limits.length > 0
        ? [{
          data: { values: limits },
          mark: { type: 'rule' as const, strokeDash: [4, 4] },
          encoding: { y: { field: 'value', type: 'quantitative' as const }, color: { field: 'label', type: 'nominal' as const, title: null, legend: { labelLimit: 300 } } },
        }]
        : []),
    ],
  });
}

/** Horizontal bars per phase, p50 and p99 side by side, in the given order. */
export function phaseBars(phases: { phase: string; p50: number; p99: number }[]): Promise<string> {
  const values = phases.flatMap((p) => [{ phase: p.phase, stat: 'p50', ms: p.p50 }, { phase: p.phase, stat: 'p99', ms: p.p99 }]);
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Small jobs: time per phase (traced run)',
    width: WIDTH, height: { step: 9 }, background: 'white',
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'phase', type: 'nominal', sort: phases.map((p) => p.phase), title: null, axis: { labelLimit: 300 } },
      yOffset: { field: 'stat', type: 'nominal' },
      x: { field: 'ms', type: 'quantitative', title: 'ms' },
      color: { field: 'stat', type: 'nominal', title: null },
    },
  });
}

/** Bars of one value per category (e.g. jobs/s per number of submitters). */
export function bars(title: string, xTitle: string, yTitle: string, values: { x: string; y: number }[]): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title, width: WIDTH / 2, height: HEIGHT, background: 'white',
    data: { values },
    mark: 'bar',
    encoding: {
      x: { field: 'x', type: 'ordinal', sort: values.map((v) => v.x), title: xTitle },
      y: { field: 'y', type: 'quantitative', title: yTitle },
    },
  });
}

/** Lines of a value against minutes since the start, one per series, with a vertical rule at the end of the warm-up. */
export function overTime(
  title: string, yTitle: string, points: { minute: number; value: number; series: string }[], warmupMinute: number,
): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title, width: WIDTH, height: HEIGHT, background: 'white',
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: { size: 12 } },
        encoding: {
          x: { field: 'minute', type: 'quantitative', title: 'minutes since start' },
          y: { field: 'value', type: 'quantitative', title: yTitle, scale: { zero: true } },
          color: { field: 'series', type: 'nominal', title: null, legend: { labelLimit: 300 } },
        },
      },
      {
        data: { values: [{ minute: warmupMinute, label: 'end of warm-up' }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { x: { field: 'minute', type: 'quantitative' } },
      },
    ],
  });
}
