import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type ValidatorFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildValidator'];

/**
 * How a request body is checked against its schema: exactly as published. No type coercion (`true`
 * is not 1, `[3]` is not 3, `12345` is not "12345"), no unknown property removed without a word
 * (`additionalProperties: false` refuses it, naming it), no default filled in. A JSON client
 * writes the types the document shows, so anything else is its mistake, told as a 400.
 */
export const STRICT_BODY = { coerceTypes: false, removeAdditional: false, useDefaults: false } as const;

/**
 * One validator per part of the request, compiled from the same schemas: the body strictly
 * (STRICT_BODY); the query string, path parameters and headers with Fastify's defaults, because a URL
 * carries only text: their schemas' types say what the text is converted to (`?page=2` is the
 * integer 2; src/http/strict-integers.ts refuses what `Number()` would wrongly take), and their
 * defaults are filled in.
 */
export function validatorsByPart(): ValidatorFactory {
  const pool = AjvCompiler();
  return (externalSchemas, options) => {
    const forText = pool(externalSchemas, options);
    // the service never uses JTD: its options are Ajv's
    const forBody = pool(externalSchemas, {
      ...options,
      customOptions: { ...options?.customOptions, ...STRICT_BODY },
    } as Parameters<typeof pool>[1]);
    return (route) => (route.httpPart === 'body' ? forBody(route) : forText(route));
  };
}
