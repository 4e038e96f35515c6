/**
 * Go's encoding/json output: HTML-escaping of <, >, & and U+2028/U+2029.
 * `goJsonIndent` = json.MarshalIndent(v, "", "  ") (webhook bodies);
 * `goJsonEncode` = json.NewEncoder(w).Encode(v) (API responses: compact + "\n").
 */
function escapeGo(text: string): string {
  return text
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function goJsonIndent(value: unknown): string {
  return escapeGo(JSON.stringify(value, null, 2));
}

export function goJsonEncode(value: unknown): string {
  return escapeGo(JSON.stringify(value)) + "\n";
}
