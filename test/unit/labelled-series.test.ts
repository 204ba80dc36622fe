import fc from 'fast-check';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelledCounter, LabelledHistogram } from '../../adapters/metrics/labelled-series.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const labelNames = ['method', 'route', 'status'] as const;

/** The same metrics twice, in two registries: prom-client's Counter and Histogram, and ours. */
function twins() {
  const plain = new Registry();
  const counter = new Counter({ name: 'requests_total', help: 'h', labelNames, registers: [plain] });
  const histogram = new Histogram({ name: 'duration_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [plain] });
  const ours = new Registry();
  const counts = new LabelledCounter({ name: 'requests_total', help: 'h', labelNames, registers: [ours] });
  const durations = new LabelledHistogram({ name: 'duration_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [ours] });
  return {
    plain,
    ours,
    counts,
    durations,
    observe(method: string, route: string, status: number, seconds: number) {
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route, status: String(status) }, seconds);
      counts.inc(method, route, status);
      durations.observe(seconds, method, route, status);
    },
  };
}

/** What a cluster's primary would expose for two workers holding these registries' metrics. */
async function aggregated(...registries: Registry[]): Promise<string> {
  return AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON()))).metrics();
}

// Values on, just under and just over every bucket bound, and past the last.
const seconds = fc.oneof(fc.constantFrom(0, ...BUCKETS, ...BUCKETS.map((b) => b * (1 + 1e-12)), 11, 1e6), fc.double({ min: 0, max: 20, noNaN: true }));
const observation = fc.tuple(fc.constantFrom('GET', 'POST'), fc.constantFrom('/a', '/b/:id', 'unmatched'), fc.constantFrom(200, 400, 404, 500), seconds);

describe('labelled series: a counter and a histogram of our own, exposed as prom-client exposes its own', () => {
  it('expose exactly what prom-client would have, series by series in the order they first appeared', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const t = twins();
        for (const [method, route, status, s] of observations) t.observe(method, route, status, s);
        expect(await t.ours.metrics()).toBe(await t.plain.metrics());
      }),
      { numRuns: 300 },
    );
  });

  it("sum across a cluster's workers as prom-client's own metrics do", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 30 }), fc.array(observation, { maxLength: 30 }), async (first, second) => {
        const workers = [twins(), twins()];
        [first, second].forEach((observations, i) => {
          for (const [method, route, status, s] of observations) workers[i]!.observe(method, route, status, s);
        });
        const ours = await aggregated(...workers.map((w) => w.ours));
        expect(ours).toBe(await aggregated(...workers.map((w) => w.plain)));
        if (first.length + second.length > 0) expect(ours).toContain('duration_seconds_bucket{le="+Inf"');
      }),
      { numRuns: 100 },
    );
  });

  it('start again from nothing when the registry resets its metrics', async () => {
    const t = twins();
    t.observe('GET', '/a', 200, 0.003);
    t.observe('GET', '/a', 200, 0.2);
    t.plain.resetMetrics();
    t.ours.resetMetrics();
    expect(await t.ours.metrics()).not.toContain('route="/a"');
    for (let i = 0; i < 5; i++) t.observe('GET', `/r${i % 3}`, 200 + i, i / 10);
    t.observe('GET', '/a', 200, 0.5);
    expect(await t.ours.metrics()).toBe(await t.plain.metrics());
  });

  it('refuses a value that is not a finite number as prom-client does, and records nothing for it', async () => {
    const t = twins();
    t.observe('GET', '/a', 200, 0.1);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) expect(() => t.durations.observe(bad, 'GET', '/a', 200)).toThrow(TypeError);
    expect(await t.ours.metrics()).toBe(await t.plain.metrics());
  });

  it('keep one series per label set whatever the label values look like (numbers and their strings are one)', async () => {
    const registry = new Registry();
    const counts = new LabelledCounter({ name: 'signs_total', help: 'h', labelNames: ['key_store'], registers: [registry] });
    counts.inc('local-file');
    counts.inc('local-file');
    counts.inc('vault-transit');
    counts.inc(200);
    counts.inc('200');
    expect(await registry.metrics()).toBe(
      '# HELP signs_total h\n# TYPE signs_total counter\nsigns_total{key_store="local-file"} 2\nsigns_total{key_store="vault-transit"} 1\nsigns_total{key_store="200"} 2\n',
    );
  });
});
