/**
 * graphql-js as the schema's own copy. Under Node, our `import … from 'graphql'` and yoga's schema
 * both load graphql's CommonJS build. Under vitest, vite's resolver gives our sources graphql's ES
 * build while yoga (an external dependency) keeps the CommonJS one, and graphql-js refuses to mix
 * them ("Cannot use GraphQLObjectType from another module or realm"). The fast path inspects the
 * schema's types, so it takes graphql from require(), which always gives the CommonJS build.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const gql = require('graphql') as typeof import('graphql');
export const { collectFields, collectSubfields } = require('graphql/execution/collectFields.js') as typeof import('graphql/execution/collectFields.js');
