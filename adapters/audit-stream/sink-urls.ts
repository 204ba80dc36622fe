import { parseOtlpUrl } from './otlp.sink.js';
import { parseSyslogUrl } from './syslog.sink.js';

/** A check from a parser that throws on what it refuses (the configuration's and createVault's refinements). */
const accepts =
  (parse: (text: string) => unknown) =>
  (text: string): boolean => {
    try {
      parse(text);
      return true;
    } catch {
      return false;
    }
  };

export const isSyslogUrl = accepts(parseSyslogUrl);
export const isOtlpUrl = accepts(parseOtlpUrl);
