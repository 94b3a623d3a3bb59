/**
 * A small, strict XML reader for asserting on our own XML output (junit.xml): elements,
 * double-quoted attributes, text and the five predefined entities plus character references.
 * Anything else (comments, CDATA, DTDs, stray `<` or `&`, characters XML 1.0 forbids) throws, so
 * a test fails on output a real parser would reject.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// eslint-disable-next-line no-control-regex
const ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NAME = /^[A-Za-z_][\w.-]*/;

function decode(raw: string, where: number): string {
  if (raw.includes('<')) throw new Error(`raw "<" at ${where}`);
  return raw.replace(/&([^;]*);|&/g, (match, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare "&" at ${where}`);
    const named = ENTITIES[ref];
    if (named !== undefined) return named;
    const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
    if (m === null) throw new Error(`unknown entity &${ref}; at ${where}`);
    const code = m[1] === undefined ? Number(m[2]) : parseInt(m[1], 16);
    const char = String.fromCodePoint(code);
    if (ILLEGAL.test(char)) throw new Error(`character reference to an illegal character &${ref}; at ${where}`);
    return char;
  });
}

export function parseXml(source: string): XmlElement {
  const illegal = ILLEGAL.exec(source);
  if (illegal !== null) throw new Error(`character U+${illegal[0].charCodeAt(0).toString(16)} is not allowed in XML 1.0 (at ${illegal.index})`);
  let pos = 0;
  const prolog = /^<\?xml[^?]*\?>\s*/.exec(source);
  if (prolog !== null) pos = prolog[0].length;

  function element(): XmlElement {
    if (source[pos] !== '<') throw new Error(`expected "<" at ${pos}`);
    pos += 1;
    const name = NAME.exec(source.slice(pos))?.[0];
    if (name === undefined) throw new Error(`expected an element name at ${pos}`);
    pos += name.length;
    const node: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      const ws = /^\s*/.exec(source.slice(pos))?.[0] ?? '';
      pos += ws.length;
      if (source.startsWith('/>', pos)) {
        pos += 2;
        return node;
      }
      if (source[pos] === '>') {
        pos += 1;
        break;
      }
      if (ws === '') throw new Error(`expected whitespace before an attribute at ${pos}`);
      const attr = /^([A-Za-z_][\w.:-]*)="([^"]*)"/.exec(source.slice(pos));
      if (attr === null || attr[1] === undefined || attr[2] === undefined) throw new Error(`malformed attribute at ${pos}`);
      if (attr[1] in node.attributes) throw new Error(`duplicate attribute ${attr[1]} at ${pos}`);
      node.attributes[attr[1]] = decode(attr[2], pos);
      pos += attr[0].length;
    }
    for (;;) {
      const next = source.indexOf('<', pos);
      if (next < 0) throw new Error(`unclosed <${name}>`);
      const raw = source.slice(pos, next);
      if (raw.includes(']]>')) throw new Error(`"]]>" in text at ${pos}`);
      node.text += decode(raw, pos);
      pos = next;
      if (source.startsWith('</', pos)) {
        const close = `</${name}>`;
        if (!source.startsWith(close, pos)) throw new Error(`expected ${close} at ${pos}`);
        pos += close.length;
        return node;
      }
      if (source.startsWith('<!', pos) || source.startsWith('<?', pos)) throw new Error(`unsupported markup at ${pos}`);
      node.children.push(element());
    }
  }

  const root = element();
  if (source.slice(pos).trim() !== '') throw new Error(`content after the root element at ${pos}`);
  return root;
}

export function childrenNamed(node: XmlElement, name: string): XmlElement[] {
  return node.children.filter((c) => c.name === name);
}
