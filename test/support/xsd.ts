/**
 * XML Schema validation with libxml2's xmllint compiled to WebAssembly (npm xmllint-wasm): the
 * same validator as the xmllint binary, with nothing to install beyond `npm ci`.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { validateXML } from 'xmllint-wasm';

/** xmllint's messages for `xml` against the schema file at `xsdPath`; empty when it validates. */
export async function xsdErrors(xml: string, xsdPath: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: 'document.xml', contents: xml },
    schema: { fileName: basename(xsdPath), contents: await readFile(xsdPath, 'utf8') },
  });
  // valid and errors are both checked: a validator that said nothing at all must not read as a pass.
  if (result.valid && result.errors.length === 0) return [];
  return result.errors.length > 0 ? result.errors.map((e) => e.rawMessage) : [`not valid: ${result.rawOutput}`];
}
