/**
 * [attachment] ALLOWED_TYPES as Forgejo v13.0.5 enforces it on every API upload:
 * services/attachment/attachment.go:70-80 (UploadAttachment reads the first 1024 bytes and calls
 * upload.Verify) and services/context/upload/upload.go:37-75 (Verify). A file passes when its extension
 * (path.Ext of the stored name, lower-cased) or its sniffed MIME type (http.DetectContentType, without
 * parameters) is in the list, or a "type/*" wildcard matches, or the list holds "*∕*" or is empty.
 * MAX_SIZE and MAX_FILES are NOT checked by the API (v13–v15): they only reach the browser's upload widget
 * (upload.go:77-106, AddUploadContext) and GET /settings/attachment.
 */

/** modules/setting/attachment.go:15 and :28, the default ALLOWED_TYPES (extensions only, no MIME types). */
export const DEFAULT_ATTACHMENT_ALLOWED_TYPES =
  ".avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip";

/** upload.ErrFileTypeForbidden.Error() (upload.go:30-32): the 422's message. */
export const FILE_TYPE_FORBIDDEN = "This file extension or type is not allowed to be uploaded.";

/** Go's path.Ext: from the last dot of the last element, or "" when that element has none. */
export function pathExt(name: string): string {
  for (let i = name.length - 1; i >= 0 && name[i] !== "/"; i--) if (name[i] === ".") return name.slice(i);
  return "";
}

const WILDCARD = /^[a-z]+\/\*$/;

/** upload.Verify (upload.go:37-75): true when the file may be stored. `head` is the file's first bytes. */
export function uploadAllowed(head: Uint8Array, fileName: string, allowedTypes: string): boolean {
  const allowed = allowedTypes
    .replaceAll("|", ",")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  if (allowed.length === 0) return true;
  const mime = (detectContentType(head).split(";")[0] ?? "").trim().toLowerCase();
  const ext = pathExt(fileName).toLowerCase();
  return allowed.some((entry) => entry === "*/*" || (entry.startsWith(".") && entry === ext) || entry === mime || (WILDCARD.test(entry) && mime.startsWith(entry.slice(0, -1))));
}

/** Bytes the WHATWG MIME-sniffing standard calls "binary data bytes" (net/http's isBinaryByte). */
function binaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

function isWs(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

function startsWith(data: Uint8Array, at: number, sig: string): boolean {
  if (data.length - at < sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (data[at + i] !== sig.charCodeAt(i)) return false;
  return true;
}

/** Case-insensitive (ASCII) HTML tag start, then a tag-terminating byte (space or '>'). */
function htmlTag(data: Uint8Array, at: number, tag: string): boolean {
  if (data.length - at < tag.length + 1) return false;
  for (let i = 0; i < tag.length; i++) {
    let b = data[at + i] ?? 0;
    if (b >= 0x61 && b <= 0x7a && tag.charCodeAt(i) >= 0x41 && tag.charCodeAt(i) <= 0x5a) b -= 0x20;
    if (b !== tag.charCodeAt(i)) return false;
  }
  const end = data[at + tag.length] ?? 0;
  return end === 0x20 || end === 0x3e;
}

const HTML_TAGS = ["<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT", "<TABLE", "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--"];

/** Exact-prefix signatures, in the order net/http's sniff table tries them after the HTML/XML ones. */
const PREFIXES: ReadonlyArray<[string, string]> = [
  ["%PDF-", "application/pdf"],
  ["%!PS-Adobe-", "application/postscript"],
  ["\xfe\xff", "text/plain; charset=utf-16be"],
  ["\xff\xfe", "text/plain; charset=utf-16le"],
  ["\xef\xbb\xbf", "text/plain; charset=utf-8"],
  ["\x00\x00\x01\x00", "image/x-icon"],
  ["\x00\x00\x02\x00", "image/x-icon"],
  ["BM", "image/bmp"],
  ["GIF87a", "image/gif"],
  ["GIF89a", "image/gif"],
  ["\x89PNG\r\n\x1a\n", "image/png"],
  ["\xff\xd8\xff", "image/jpeg"],
  [".snd", "audio/basic"],
  ["OggS\x00", "application/ogg"],
  ["MThd\x00\x00\x00\x06", "audio/midi"],
  ["ID3", "audio/mpeg"],
  ["\x00\x01\x00\x00", "font/ttf"],
  ["OTTO", "font/otf"],
  ["ttcf", "font/collection"],
  ["wOFF", "font/woff"],
  ["wOF2", "font/woff2"],
  ["\x1f\x8b\x08", "application/x-gzip"],
  ["PK\x03\x04", "application/zip"],
  ["Rar!\x1a\x07\x00", "application/x-rar-compressed"],
  ["Rar!\x1a\x07\x01\x00", "application/x-rar-compressed"],
  ["\x00\x61\x73\x6d", "application/wasm"],
];

/** RIFF/FORM containers: 4 bytes of size, then the form type at offset 8. */
const CONTAINERS: ReadonlyArray<[string, string, string]> = [
  ["RIFF", "WEBPVP", "image/webp"],
  ["FORM", "AIFF", "audio/aiff"],
  ["RIFF", "WAVE", "audio/wave"],
  ["RIFF", "AVI ", "video/avi"],
];

/** An ISO base media file whose ftyp box names an mp4 brand ("mp4" in the major or a compatible brand). */
function isMp4(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const boxSize = new DataView(data.buffer, data.byteOffset, 4).getUint32(0);
  if (data.length < boxSize || boxSize % 4 !== 0 || !startsWith(data, 4, "ftyp")) return false;
  for (let st = 8; st < boxSize; st += 4) {
    if (st === 12) continue; // the minor version
    if (startsWith(data, st, "mp4")) return true;
  }
  return false;
}

/**
 * http.DetectContentType, re-implemented from the WHATWG MIME-sniffing standard that net/http follows: at
 * most the first 512 bytes are considered; HTML and XML may follow leading whitespace; text with no binary
 * byte is "text/plain; charset=utf-8", anything else "application/octet-stream".
 */
export function detectContentType(input: Uint8Array): string {
  const data = input.subarray(0, 512);
  let first = 0;
  while (first < data.length && isWs(data[first] ?? 0)) first++;
  if (HTML_TAGS.some((t) => htmlTag(data, first, t))) return "text/html; charset=utf-8";
  if (startsWith(data, first, "<?xml")) return "text/xml; charset=utf-8";
  for (const [sig, type] of PREFIXES) if (startsWith(data, 0, sig)) return type;
  for (const [outer, form, type] of CONTAINERS) if (startsWith(data, 0, outer) && startsWith(data, 8, form)) return type;
  if (isMp4(data)) return "video/mp4";
  if (startsWith(data, 0, "\x1a\x45\xdf\xa3") && Buffer.from(data).includes("webm")) return "video/webm";
  for (const b of data) if (binaryByte(b)) return "application/octet-stream";
  return "text/plain; charset=utf-8";
}
