import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { asArray } from './pipeline-steps.js';

/** A base-10 integer as a client writes it: an optional minus sign and digits, nothing else. */
const DECIMAL_INTEGER = /^-?\d+$/;

type Part = 'querystring' | 'params';
const PARTS: readonly Part[] = ['querystring', 'params'];
type FieldSchema = Record<string, unknown>;

interface IntegerField {
  part: Part;
  name: string;
  schema: FieldSchema;
}

function integerFields(schema: Record<string, unknown> | undefined): IntegerField[] {
  return PARTS.flatMap((part) => {
    const properties = (schema?.[part] as { properties?: Record<string, FieldSchema> } | undefined)
      ?.properties;
    return Object.entries(properties ?? {})
      .filter(([, field]) => field.type === 'integer')
      .map(([name, field]) => ({ part, name, schema: field }));
  });
}

/**
 * The error Fastify raises for a failed schema check, so the errors plugin words it like any other:
 * "query parameter 'limit' must be an integer from 1 to 100 (got "0x10")".
 */
function notAnInteger(field: IntegerField, value: string): Error {
  return Object.assign(new Error(`${field.part}/${field.name} must be integer`), {
    statusCode: 400,
    code: 'FST_ERR_VALIDATION',
    validationContext: field.part,
    validation: [
      {
        keyword: 'type',
        instancePath: `/${field.name}`,
        schemaPath: `#/properties/${field.name}/type`,
        params: { type: 'integer' },
        message: 'must be integer',
        parentSchema: field.schema,
        data: value,
      },
    ],
  });
}

function checkIntegers(fields: readonly IntegerField[]): preValidationHookHandler {
  return function strictIntegers(request: FastifyRequest, _reply, done) {
    for (const field of fields) {
      const values = (field.part === 'querystring' ? request.query : request.params) as
        Record<string, unknown> | undefined;
      const value = values?.[field.name];
      // absent values take their default; repeated ones (arrays) fail the schema check itself.
      // Past 2^53 the validator would see a rounded number, or Infinity (which passes its bounds).
      if (
        typeof value === 'string' &&
        (!DECIMAL_INTEGER.test(value) || !Number.isSafeInteger(Number(value)))
      ) {
        done(notAnInteger(field, value));
        return;
      }
    }
    done();
  };
}

/**
 * Integer path and query parameters accept decimal digits only. The schema validator coerces a
 * string with `Number()`, which also takes "0x10", "1e1", "10.0" and " 10": a client sending one of
 * those gets a 400 naming the parameter instead of a page it did not ask for. A value of more
 * digits than a double holds exactly is refused the same way: 309 digits would coerce to Infinity,
 * which the validator's bounds let through to SQL.
 */
export const strictIntegersPlugin = fp(
  (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const fields = integerFields(route.schema as Record<string, unknown> | undefined);
      if (fields.length === 0) return;
      route.preValidation = [checkIntegers(fields), ...asArray(route.preValidation)];
    });
  },
  { name: 'strict-integers' },
);
