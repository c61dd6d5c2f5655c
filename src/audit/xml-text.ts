/**
 * Escaping text for the XML the machine exports write (SCXML, SVG): the five characters
 * XML reserves, and control characters XML 1.0 does not allow at all (dropped).
 */
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an element or a double- or single-quoted attribute. */
export function xmlEscape(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
