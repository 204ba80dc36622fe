import type { Counter, Histogram } from 'prom-client';

/**
 * prom-client's `inc(labels)` and `observe(labels, v)` validate the labels and build a string of them on
 * every call (and `labels(...)` children do the same per call): several microseconds a request, for a
 * handful of label sets that never change. These caches find prom-client's own record of a series once,
 * through that public call, and update the record directly afterwards: the same record its `get()`
 * turns into /metrics, so the exposition is the one prom-client would have written (a test compares
 * them). A metric's reset() (a new record map) empties the cache; more than `maxSeries` label sets (a
 * bug: every label here is from a closed set) are passed through uncached rather than kept.
 */

/** What prom-client keeps per series (lib/counter.js, lib/histogram.js), and where. */
interface CounterRecord {
  labels: object;
  value: number;
}
interface HistogramRecord {
  labels: object;
  sum: number;
  count: number;
  bucketValues: Record<number, number>;
}
interface Records<R> {
  hashMap: Record<string, R>;
}

/** The label values of a series in the metric's label order: at most three here. */
type Values = readonly [string | number, (string | number)?, (string | number)?];

const DEFAULT_MAX_SERIES = 1024;

/** Records by their label values, one Map level per label (no key string built per call). */
class SeriesTable<R> {
  private root = new Map<string | number, unknown>();
  private records: Record<string, R> | undefined;
  private size = 0;

  constructor(
    private readonly metric: Records<R>,
    private readonly depth: number,
    private readonly maxSeries: number,
  ) {}

  /** The record of `values`, if cached and still the metric's own. */
  find(a: string | number, b?: string | number, c?: string | number): R | undefined {
    if (this.records !== this.metric.hashMap) {
      this.root = new Map();
      this.size = 0;
      this.records = this.metric.hashMap;
      return undefined;
    }
    let node = this.root.get(a);
    if (this.depth > 1 && node !== undefined) node = (node as Map<unknown, unknown>).get(b);
    if (this.depth > 2 && node !== undefined) node = (node as Map<unknown, unknown>).get(c);
    return node as R | undefined;
  }

  /** Caches the record prom-client made for `labels` (the very object it was given), once it exists. */
  keep(values: Values, labels: object): void {
    if (this.size >= this.maxSeries || this.records !== this.metric.hashMap) return;
    const record = Object.values(this.metric.hashMap).find((r) => (r as { labels: object }).labels === labels);
    if (record === undefined) return;
    let level = this.root;
    for (let i = 0; i < this.depth - 1; i++) {
      let next = level.get(values[i]!) as Map<string | number, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    level.set(values[this.depth - 1]!, record);
    this.size++;
  }
}

/** A counter's series by label values; `labelsOf` builds the labels object prom-client keeps. */
export class CounterSeries {
  private readonly table: SeriesTable<CounterRecord>;

  constructor(
    private readonly counter: Counter<string>,
    private readonly labelsOf: (a: string | number, b?: string | number, c?: string | number) => Record<string, string>,
    depth: number,
    maxSeries = DEFAULT_MAX_SERIES,
  ) {
    this.table = new SeriesTable(counter as unknown as Records<CounterRecord>, depth, maxSeries);
  }

  /** counter.inc(labels), by one. */
  inc(a: string | number, b?: string | number, c?: string | number): void {
    const record = this.table.find(a, b, c);
    if (record !== undefined) {
      record.value += 1;
      return;
    }
    const labels = this.labelsOf(a, b, c);
    this.counter.inc(labels);
    this.table.keep([a, b, c], labels);
  }
}

/** A histogram's series by label values; `labelsOf` builds the labels object prom-client keeps. */
export class HistogramSeries {
  private readonly table: SeriesTable<HistogramRecord>;
  private readonly upperBounds: readonly number[];

  constructor(
    private readonly histogram: Histogram<string>,
    private readonly labelsOf: (a: string | number, b?: string | number, c?: string | number) => Record<string, string>,
    depth: number,
    maxSeries = DEFAULT_MAX_SERIES,
  ) {
    this.table = new SeriesTable(histogram as unknown as Records<HistogramRecord>, depth, maxSeries);
    this.upperBounds = (histogram as unknown as { upperBounds: readonly number[] }).upperBounds;
  }

  /** histogram.observe(labels, value). */
  observe(value: number, a: string | number, b?: string | number, c?: string | number): void {
    const record = Number.isFinite(value) ? this.table.find(a, b, c) : undefined; // prom-client refuses the rest
    if (record !== undefined) {
      record.sum += value;
      record.count += 1;
      // The first bucket the value fits; one above the last is counted by `count` alone (+Inf).
      const { upperBounds } = this;
      for (let i = 0; i < upperBounds.length; i++) {
        if (value <= upperBounds[i]!) {
          record.bucketValues[upperBounds[i]!]! += 1;
          break;
        }
      }
      return;
    }
    const labels = this.labelsOf(a, b, c);
    this.histogram.observe(labels, value);
    this.table.keep([a, b, c], labels);
  }
}
