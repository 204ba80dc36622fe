import type { Metric, Registry } from 'prom-client';

/**
 * A counter and a histogram of our own for the per-request and per-sign series. prom-client's
 * `inc(labels)` and `observe(labels, v)` validate the labels and build a string of them on every call
 * (its `labels(...)` children too, per call): about 1.8 µs a signed request, for a handful of label sets
 * that never change. These keep their series in a Map per label, found by the label values without
 * building anything, and hand them to the registry at scrape time through `get()`, the one call a
 * prom-client registry makes of a metric (for the text exposition and for the cluster's aggregation
 * alike). `get()` answers what prom-client's own Counter and Histogram answer for the same updates, so
 * /metrics and the cluster's sums read the same (a test compares them).
 */

/** Label values in the metric's label order: at most three here. */
type LabelValue = string | number;

/** What prom-client's `get()` answers: the shape its registry formats and its cluster aggregator sums. */
interface Sample {
  value: number;
  labels: Record<string, LabelValue>;
  metricName?: string;
}
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

interface Config {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: readonly Registry[];
}

/** Series by their label values, one Map level per label, in the order they first appeared. */
abstract class LabelledMetric<S extends { labels: Record<string, string> }> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum' as const;
  protected series: S[] = [];
  private root = new Map<LabelValue, unknown>();

  constructor(config: Config) {
    if (config.labelNames.length < 1 || config.labelNames.length > 3) throw new Error(`${config.name}: one to three labels`);
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // The registry's typings name its own four classes; at run time it asks a metric for its name,
    // type, get() and reset() only, which this class provides.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract create(labels: Record<string, string>): S;

  /** The series of these label values (given in the order of `labelNames`), made on first use. */
  protected find(a: LabelValue, b?: LabelValue, c?: LabelValue): S {
    const depth = this.labelNames.length;
    let node: unknown = this.root.get(a);
    if (depth > 1 && node !== undefined) node = (node as Map<LabelValue, unknown>).get(b!);
    if (depth > 2 && node !== undefined) node = (node as Map<LabelValue, unknown>).get(c!);
    return (node as S | undefined) ?? this.add([a, b, c]);
  }

  private add(values: readonly (LabelValue | undefined)[]): S {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((labelName, i) => (labels[labelName] = String(values[i])));
    // 200 and '200' are one series to Prometheus: a second path to it, not a second series.
    const same = this.series.find((s) => this.labelNames.every((name) => s.labels[name] === labels[name]));
    const series = same ?? this.create(labels);
    let level = this.root;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    level.set(values[last]!, series);
    if (same === undefined) this.series.push(series);
    return series;
  }

  /** Forgets every series, as prom-client's reset() does (Registry.resetMetrics calls it). */
  reset(): void {
    this.series = [];
    this.root = new Map();
  }
}

interface CounterSeries {
  labels: Record<string, string>;
  value: number;
}

/** A counter by label values; exposed as prom-client's Counter would expose it. */
export class LabelledCounter extends LabelledMetric<CounterSeries> {
  readonly type = 'counter' as const;

  protected create(labels: Record<string, string>): CounterSeries {
    return { labels, value: 0 };
  }

  /** Adds one to the series of these label values. */
  inc(a: LabelValue, b?: LabelValue, c?: LabelValue): void {
    this.find(a, b, c).value += 1;
  }

  async get(): Promise<Collected> {
    const values = this.series.map(({ labels, value }) => ({ value, labels: { ...labels } }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries {
  labels: Record<string, string>;
  sum: number;
  count: number;
  /** Observations per bucket, not cumulative: the first bucket each value fits (above the last: none). */
  buckets: number[];
}

/** A histogram by label values; exposed as prom-client's Histogram would expose it. */
export class LabelledHistogram extends LabelledMetric<HistogramSeries> {
  readonly type = 'histogram' as const;
  private readonly upperBounds: readonly number[];

  constructor(config: Config & { buckets: readonly number[] }) {
    super(config);
    this.upperBounds = [...config.buckets];
  }

  protected create(labels: Record<string, string>): HistogramSeries {
    return { labels, sum: 0, count: 0, buckets: this.upperBounds.map(() => 0) };
  }

  /** Records `value` in the series of these label values; like prom-client, refuses one not finite. */
  observe(value: number, a: LabelValue, b?: LabelValue, c?: LabelValue): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: value is not a valid number: ${value}`);
    const series = this.find(a, b, c);
    series.sum += value;
    series.count += 1;
    const { upperBounds } = this;
    for (let i = 0; i < upperBounds.length; i++) {
      if (value <= upperBounds[i]!) {
        series.buckets[i]! += 1;
        break;
      }
    }
  }

  /** Per series: a cumulative `_bucket` per bound (`le` first among the labels, as prom-client orders them), `+Inf`, `_sum`, `_count`. */
  async get(): Promise<Collected> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, sum, count, buckets } of this.series) {
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ value: cumulative, labels: { le, ...labels }, metricName: bucket });
      });
      values.push({ value: count, labels: { le: '+Inf', ...labels }, metricName: bucket });
      values.push({ value: sum, labels: { ...labels }, metricName: `${this.name}_sum` });
      values.push({ value: count, labels: { ...labels }, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
