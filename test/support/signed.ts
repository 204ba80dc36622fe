/** What a standard sign answers when a hold rule held it. */
type Held = { readonly approval: unknown };

/** A standard sign's result, where the test expects one: a request a hold rule held (`{ approval }`) fails the test. */
export function signed<T extends object>(outcome: T): Exclude<T, Held> {
  if ('approval' in outcome) throw new Error('held for approval; the test expected a signature');
  return outcome as Exclude<T, Held>;
}

/** `signed` over a promise. */
export const signedNow = async <T extends object>(outcome: Promise<T>): Promise<Exclude<T, Held>> => signed(await outcome);
