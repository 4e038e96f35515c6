/** swagger.v1.json (Forgejo v13.0.5) access for the conformance suite: operations, parameters, response schemas. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import formatsModule from "ajv-formats";

type Json = Record<string, unknown>;

/** Vendored copy; see fixtures/forgejo/PROVENANCE.md. */
export const SWAGGER_PATH = fileURLToPath(new URL("../../fixtures/forgejo/swagger.v1.json", import.meta.url));
export const swagger = JSON.parse(readFileSync(SWAGGER_PATH, "utf8")) as Json;
const paths = swagger.paths as Record<string, Record<string, Json>>;
const responses = swagger.responses as Record<string, Json>;
const definitions = swagger.definitions as Record<string, Json>;

export function operation(method: string, template: string): Json | undefined {
  return paths[template]?.[method.toLowerCase()];
}

export function queryParams(op: Json): string[] {
  const params = (op.parameters ?? []) as Json[];
  return params.filter((p) => p.in === "query").map((p) => String(p.name));
}

/**
 * Swagger 2.0 has no "nullable"; Go pointers/slices render null. Every property becomes "schema or null".
 * `closed` adds additionalProperties:false to definitions so invented keys are caught (User allows the
 * "username" key that User.MarshalJSON appends).
 */
function transform(node: unknown, closed: boolean, defName?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => transform(n, closed));
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k.startsWith("x-") || k === "example") continue;
    if (k === "$ref" && typeof v === "string") out.$ref = v.replace("#/definitions/", "forgejo#/definitions/");
    else if (k === "properties" && typeof v === "object" && v !== null) {
      const props: Json = {};
      for (const [pk, pv] of Object.entries(v as Json)) props[pk] = { anyOf: [transform(pv, closed), { type: "null" }] };
      if (defName === "User") props.username = { type: "string" };
      out.properties = props;
    } else out[k] = transform(v, closed);
  }
  if (closed && defName && out.type === "object" && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
formatsModule.default(ajv);
ajv.addFormat("int64", true);
ajv.addFormat("uint64", true);
const defs: Json = {};
for (const [name, d] of Object.entries(definitions)) defs[name] = transform(d, true, name);
ajv.addSchema({ $id: "forgejo", definitions: defs });

const cache = new Map<string, ValidateFunction | null>();

/** Validator for a response entry (resolving "#/responses/..."); null when the response has no schema. */
export function responseValidator(op: Json, status: number): ValidateFunction | null {
  const entry = (op.responses as Json)[String(status)] as Json | undefined;
  if (!entry) throw new Error(`status ${status} not declared`);
  return validatorFor(entry);
}

export function validatorFor(entry: Json): ValidateFunction | null {
  let resp = entry;
  if (typeof resp.$ref === "string") {
    const name = resp.$ref.replace("#/responses/", "");
    resp = responses[name]!;
  }
  const schema = resp.schema as Json | undefined;
  if (!schema) return null;
  const key = JSON.stringify(schema);
  if (!cache.has(key)) cache.set(key, ajv.compile(transform(schema, true) as Json));
  return cache.get(key)!;
}

/** Validator for a named response, e.g. "unauthorized", "validationError". */
export function namedResponseValidator(name: string): ValidateFunction | null {
  return validatorFor({ $ref: `#/responses/${name}` });
}
