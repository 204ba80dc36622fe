import { parseJsonBody } from './json-body.js';
import { checkJsonBounds, type JsonBounds } from './json-bounds.js';
import { signBodyLimits, type JsonTextLimits } from './json-nesting.js';

/** How a Sign body is bounded under one set of VAULT_ARGS_MAX_* bounds: built once, not per request. */
interface SignBodyShape {
  readonly limits: JsonTextLimits;
  readonly args: JsonBounds;
  readonly abi: JsonBounds;
}

const shapes = new WeakMap<JsonBounds, SignBodyShape>();

function shapeOf(bounds: JsonBounds): SignBodyShape {
  let shape = shapes.get(bounds);
  if (shape === undefined) {
    // Each tuple level of an argument is two levels of its ABI item (`inputs[i].components[j]`).
    // The ABI item's own size is bounded by abi-function.ts (ABI_LIMITS), not by a count of its values.
    shape = { limits: signBodyLimits(bounds), args: bounds, abi: { ...bounds, maxDepth: 2 * bounds.maxDepth + 2, maxValues: Infinity } };
    shapes.set(bounds, shape);
  }
  return shape;
}

/**
 * A Sign body, parsed, with `args` and `abi` within `bounds`, `args` checked first: a hostile shape costs
 * no more than these bounds in what follows (coercion, encoding, the ABI parse).
 */
export function parseSignBody(bytes: Buffer, contentType: string | undefined, bounds: JsonBounds): unknown {
  const shape = shapeOf(bounds);
  const body = parseJsonBody(bytes, contentType, shape.limits);
  if (typeof body === 'object' && body !== null) {
    const { args, abi } = body as { args?: unknown; abi?: unknown };
    checkJsonBounds(args, 'args', shape.args);
    checkJsonBounds(abi, 'abi', shape.abi);
  }
  return body;
}
