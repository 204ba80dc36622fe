import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from './openapi-document.js';

/** The document as shipped in the package (`openapi.json` at its root): stable, pretty, one trailing newline. */
export const openApiFileText = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

// `npm run build` runs this from dist/: node dist/adapters/http/openapi/write-openapi-file.js [path]
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const target = process.argv[2] ?? new URL('../../../../openapi.json', import.meta.url);
  writeFileSync(target, openApiFileText());
}
