import { DomainError, invalidArgument } from '../errors.js';
import { parseAbiFunction, type ParsedFunction } from './abi-function.js';

/** Longer than any real signature written out with names; an operator's text, but still bounded. */
const MAX_TEXT = 8192;
const WORD = /[A-Za-z0-9_$]/;
/** Data locations an operator may copy from Solidity source along with the types: they change nothing. */
const LOCATIONS = new Set(['calldata', 'memory', 'storage']);
/** Words after the parameters (Solidity, ethers' `format('full')`), and `returns (…)`: not part of the selector. */
const MODIFIERS = new Set(['external', 'public', 'payable', 'nonpayable', 'view', 'pure', 'virtual', 'override']);

interface RawParam {
  name: string;
  type: string;
  components?: RawParam[];
}

/**
 * Reads a function given as signature text, with or without parameter names, as Solidity writes it:
 * `mint(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)`; tuples as `(…)` or
 * `tuple(…)`, a leading `function` and data locations allowed. A JSON ABI item (`{"type":"function",…}`)
 * is accepted too. The result is checked as a sign request's ABI item is (parseAbiFunction), so it has
 * the same canonical signature and selector the vault computes when it signs.
 */
export function parseFunctionText(text: string, options: { signatureRequired?: boolean } = {}): ParsedFunction {
  const source = text.trim();
  if (source.length > MAX_TEXT) throw invalidArgument(`function: ${source.length} characters is longer than the limit of ${MAX_TEXT}`);
  if (source.startsWith('{')) {
    let item: unknown;
    try {
      item = JSON.parse(source);
    } catch {
      throw invalidArgument('function: starts with { but is not JSON (give an ABI item or signature text)');
    }
    return parseAbiFunction(item, options);
  }
  const reader = new Reader(source);
  reader.word('function');
  const name = reader.identifier();
  if (name === '') throw reader.error('a function name');
  const inputs = reader.paramList();
  reader.modifiers();
  reader.end();
  try {
    return parseAbiFunction({ type: 'function', name, inputs }, options);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (/no signature parameter/.test(error.message)) {
      throw invalidArgument(
        `function: ${JSON.stringify(source)} has no signature parameter: the vault signs only functions that take one, ` +
          'and its selector counts it; write the function as the contract declares it, e.g. ' +
          `${source.slice(0, -1)}${inputs.length ? ', ' : ''}(bytes32,bytes32,bytes32,uint8) sig)`,
      );
    }
    // The item was built from the text: name its place as the text has it, not as an ABI item's field.
    throw invalidArgument(`function: ${error.message.replace(/^abi\./, '')}`);
  }
}

/** A small recursive-descent reader over the text; depth is bounded by parseAbiFunction's limits after it. */
class Reader {
  private i = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  error(expected: string): Error {
    return invalidArgument(`function: expected ${expected} at character ${this.i + 1} of ${JSON.stringify(this.text)}`);
  }

  private skipSpace(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }

  /** Consumes `word` when it comes next as a whole word. */
  word(word: string): boolean {
    this.skipSpace();
    const end = this.i + word.length;
    if (this.text.startsWith(word, this.i) && !WORD.test(this.text[end] ?? '')) {
      this.i = end;
      return true;
    }
    return false;
  }

  identifier(): string {
    this.skipSpace();
    const start = this.i;
    while (this.i < this.text.length && WORD.test(this.text[this.i]!)) this.i++;
    return this.text.slice(start, this.i);
  }

  private expect(char: string): void {
    this.skipSpace();
    if (this.text[this.i] !== char) throw this.error(JSON.stringify(char));
    this.i++;
  }

  private peek(char: string): boolean {
    this.skipSpace();
    return this.text[this.i] === char;
  }

  paramList(): RawParam[] {
    if (++this.depth > 32) throw invalidArgument('function: tuples nest too deeply');
    this.expect('(');
    const params: RawParam[] = [];
    if (!this.peek(')')) {
      for (;;) {
        params.push(this.param());
        if (!this.peek(',')) break;
        this.i++;
      }
    }
    this.expect(')');
    this.depth--;
    return params;
  }

  private param(): RawParam {
    let type: string;
    let components: RawParam[] | undefined;
    this.word('tuple');
    if (this.peek('(')) {
      components = this.paramList();
      type = 'tuple';
    } else {
      type = this.identifier();
      if (type === '') throw this.error('a type');
    }
    type += this.arraySuffix();
    while (LOCATIONS.has(this.nextWord())) this.identifier();
    const name = this.identifier();
    return components ? { name, type, components } : { name, type };
  }

  private nextWord(): string {
    const at = this.i;
    const word = this.identifier();
    this.i = at;
    return word;
  }

  private arraySuffix(): string {
    let suffix = '';
    while (this.peek('[')) {
      const start = this.i;
      while (this.i < this.text.length && this.text[this.i] !== ']') this.i++;
      if (this.i === this.text.length) throw this.error('"]"');
      this.i++;
      suffix += this.text.slice(start, this.i).replace(/\s/g, '');
    }
    return suffix;
  }

  modifiers(): void {
    for (;;) {
      const word = this.nextWord();
      if (MODIFIERS.has(word)) this.identifier();
      else if (word === 'returns') {
        this.identifier();
        this.paramList();
      } else return;
    }
  }

  end(): void {
    this.skipSpace();
    if (this.i !== this.text.length) throw this.error('the end of the text');
  }
}
