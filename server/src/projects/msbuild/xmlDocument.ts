/**
 * MSBuild XML through fast-xml-parser (ordered mode), turned into a small element tree. Malformed
 * XML is a value (`{ ok: false, error }`) carrying the parser's message and line.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated text content of this element (not of its children). */
  text: string;
}

export type XmlParse = { ok: true; root: XmlElement } | { ok: false; error: string };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
});

/** Parses an XML document; the root element is the first element at the top level. */
export function parseXml(text: string): XmlParse {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const valid = XMLValidator.validate(src);
  if (valid !== true) return { ok: false, error: `malformed XML at line ${valid.err.line}: ${valid.err.msg}` };
  let raw: unknown;
  try {
    raw = parser.parse(src);
  } catch (e) {
    return { ok: false, error: `malformed XML: ${(e as Error).message}` };
  }
  const top = Array.isArray(raw) ? raw.map(toElement).filter((e): e is XmlElement => e !== undefined) : [];
  const root = top[0];
  if (!root) return { ok: false, error: 'the document has no root element' };
  return { ok: true, root };
}

function toElement(node: unknown): XmlElement | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const rec = node as Record<string, unknown>;
  const name = Object.keys(rec).find((k) => k !== ':@' && k !== '#text');
  if (name === undefined) return undefined;
  const attrsRaw = rec[':@'];
  const attrs: Record<string, string> = {};
  if (attrsRaw && typeof attrsRaw === 'object') {
    for (const [k, v] of Object.entries(attrsRaw as Record<string, unknown>)) attrs[k] = String(v);
  }
  const children: XmlElement[] = [];
  let text = '';
  const body = rec[name];
  if (Array.isArray(body)) {
    for (const c of body) {
      if (c && typeof c === 'object' && '#text' in (c as object)) text += String((c as Record<string, unknown>)['#text']);
      else {
        const el = toElement(c);
        if (el) children.push(el);
      }
    }
  }
  return { name: localName(name), attrs, children, text };
}

function localName(n: string): string {
  const i = n.indexOf(':');
  return i < 0 ? n : n.slice(i + 1);
}

/** Attribute lookup (MSBuild attribute names are case-sensitive). */
export function attr(el: XmlElement, name: string): string | undefined {
  return el.attrs[name];
}
