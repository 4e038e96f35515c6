/**
 * A module-level schema that is built on first use instead of at import.
 *
 * Why: building a zod schema costs about 0.1 M instructions per node (zod 4: an instance per
 * `.min()`/`.optional()`, each with its traits and bound members), and the CLI's hot bundle imported
 * ~420 of them on every `checkpost save`, of which the save used under a quarter (docs/benchmarks.md,
 * "Issue 22, fourth session"). A one-shot process should only build what it parses.
 *
 * The value is a transparent Proxy of the schema: methods, `_zod`, `instanceof`, `z.infer` and
 * nesting inside other schemas behave as with the schema itself. Methods are read from the built
 * schema (so their `this` is the schema, not the proxy). Identity is the proxy's: registries and
 * `===` see the exported value, which is the one every module shares.
 *
 * A schema nested in another is read on every parse of the outer one, so builders nest the built
 * schema (`builtSchema(X)`), not the proxy: a parse then pays one trap, on the outer schema.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    built ??= build();
    return built;
  };
  const proxy = new Proxy({} as T, {
    get: (_t, key) => Reflect.get(real(), key, real()),
    set: (_t, key, value) => Reflect.set(real(), key, value, real()),
    has: (_t, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    // Reported configurable: the proxy's own (empty) target cannot carry a non-configurable property.
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      return d ? { ...d, configurable: true } : undefined;
    },
    defineProperty: (_t, key, desc) => Reflect.defineProperty(real(), key, desc),
    deleteProperty: (_t, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
  builders.set(proxy, real);
  return proxy;
}

const builders = new WeakMap<object, () => object>();

/** The schema behind a `lazySchema` (built now if it was not), or `schema` itself if it is not one. */
export function builtSchema<T extends object>(schema: T): T {
  const real = builders.get(schema);
  return real ? (real() as T) : schema;
}
