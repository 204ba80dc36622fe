// @ts-check
// Amounts and times as an approver reads them. Amounts are decimal strings of wei (the API never sends a
// number that could lose digits); BigInt keeps every one.

const WEI_PER_ETHER = 10n ** 18n;

/**
 * `1500000000000000000` → `1.5`: a wei amount in the chain's native unit, every digit kept.
 * @param {string} wei
 */
export function formatEther(wei) {
  if (!/^\d+$/.test(wei)) return wei;
  const n = BigInt(wei);
  const whole = n / WEI_PER_ETHER;
  const fraction = (n % WEI_PER_ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return `${groupDigits(whole.toString())}${fraction ? `.${fraction}` : ''}`;
}

/** @param {string} digits */
export const groupDigits = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * "3 minutes ago" / "in 23 hours", from now.
 * @param {string} iso
 * @param {number} [now]
 */
export function relative(iso, now = Date.now()) {
  const ms = new Date(iso).getTime() - now;
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  /** @type {[Intl.RelativeTimeFormatUnit, number][]} */
  const units = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units) if (abs >= size) return rtf.format(Math.round(ms / size), unit);
  return ms < 0 ? 'just now' : 'in less than a minute';
}

/**
 * A readable absolute instant in the reader's time zone (the machine value stays in <time datetime>).
 * @param {string} iso
 */
export function absolute(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A long hex value shortened around an ellipsis for a list (details show it whole).
 * @param {string} hex
 */
export const shortHex = (hex) => (hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex);
