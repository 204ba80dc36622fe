/** The only source of time for the core. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}
