import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterSeries, HistogramSeries } from '../../adapters/metrics/labelled-series.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const labelNames = ['method', 'route', 'status'] as const;

/** The same metrics twice, in two registries: one fed through prom-client's calls, one through the caches. */
function twins(maxSeries?: number) {
  const make = () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'requests_total', help: 'h', labelNames, registers: [registry] });
    const histogram = new Histogram({ name: 'duration_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [registry] });
    return { registry, counter, histogram };
  };
  const plain = make();
  const cached = make();
  const labelsOf = (method: unknown, route: unknown, status: unknown) => ({ method: String(method), route: String(route), status: String(status) });
  const counts = new CounterSeries(cached.counter, labelsOf, 3, maxSeries);
  const durations = new HistogramSeries(cached.histogram, labelsOf, 3, maxSeries);
  return {
    plain,
    cached,
    observe(method: string, route: string, status: number, seconds: number) {
      plain.counter.inc({ method, route, status: String(status) });
      plain.histogram.observe({ method, route, status: String(status) }, seconds);
      counts.inc(method, route, status);
      durations.observe(seconds, method, route, status);
    },
  };
}

// Values on, just under and just over every bucket bound, and past the last.
const seconds = fc.oneof(fc.constantFrom(0, ...BUCKETS, ...BUCKETS.map((b) => b * (1 + 1e-12)), 11, 1e6), fc.double({ min: 0, max: 20, noNaN: true }));
const observation = fc.tuple(fc.constantFrom('GET', 'POST'), fc.constantFrom('/a', '/b/:id', 'unmatched'), fc.constantFrom(200, 400, 404, 500), seconds);

describe('labelled series: prom-client records updated without its per-call label hashing', () => {
  it('expose exactly what prom-client would have, series by series in the order they first appeared', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const t = twins();
        for (const [method, route, status, s] of observations) t.observe(method, route, status, s);
        expect(await t.cached.registry.metrics()).toBe(await t.plain.registry.metrics());
      }),
      { numRuns: 300 },
    );
  });

  it('keep counting after the metric is reset, and past the most series they cache', async () => {
    for (const maxSeries of [undefined, 2]) {
      const t = twins(maxSeries);
      t.observe('GET', '/a', 200, 0.003);
      t.observe('GET', '/a', 200, 0.2);
      for (const m of [t.plain, t.cached]) {
        m.counter.reset();
        m.histogram.reset();
      }
      for (let i = 0; i < 5; i++) t.observe('GET', `/r${i % 3}`, 200 + i, i / 10);
      t.observe('GET', '/r0', 200, 0.5);
      expect(await t.cached.registry.metrics()).toBe(await t.plain.registry.metrics());
    }
  });

  it('refuses a value that is not a number as prom-client does', () => {
    const t = twins();
    t.observe('GET', '/a', 200, 0.1);
    const durations = new HistogramSeries(t.cached.histogram, (a, b, c) => ({ method: String(a), route: String(b), status: String(c) }), 3);
    durations.observe(0.1, 'GET', '/a', 200);
    expect(() => durations.observe(Number.NaN, 'GET', '/a', 200)).toThrow(TypeError);
  });
});
