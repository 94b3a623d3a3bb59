import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  componentSchema,
  componentSchemas,
  declaredProperties,
  listLimits,
  newPetRequired,
  openApiDocument,
  operations,
  specVersion,
  statusValues,
} from '../src/interface/openapi.js';
import { packagePath, packageRoot } from '../src/interface/package-root.js';

describe('packageRoot', () => {
  it('is the directory of our package.json', () => {
    const pkg: unknown = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'petstore-conformance' });
    expect(existsSync(packagePath('schemas', 'openapi.yaml'))).toBe(true);
  });
});

describe('the interface document', () => {
  it('is OpenAPI 3.1, version 1.0.0, based at /v1, bearer everywhere', () => {
    const doc = openApiDocument();
    expect(doc['openapi']).toBe('3.1.0');
    expect(specVersion()).toBe('1.0.0');
    expect(doc['servers']).toEqual([expect.objectContaining({ url: '/v1' })]);
    expect(doc['security']).toEqual([{ bearerAuth: [] }]);
    expect(doc['components']).toMatchObject({ securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } });
  });

  it('is loaded once', () => {
    expect(openApiDocument()).toBe(openApiDocument());
  });

  it('has the four operations, getPet deprecated', () => {
    expect(operations()).toEqual([
      { operationId: 'listPets', method: 'GET', path: '/pets', deprecated: false },
      { operationId: 'createPet', method: 'POST', path: '/pets', deprecated: false },
      { operationId: 'getPet', method: 'GET', path: '/pets/{petId}', deprecated: true },
      { operationId: 'listOrders', method: 'GET', path: '/store/orders', deprecated: false },
    ]);
  });

  it('exposes what the suites read', () => {
    expect(listLimits()).toEqual({ min: 1, max: 100, default: 20 });
    expect(statusValues()).toEqual(['available', 'pending', 'sold']);
    expect(newPetRequired()).toEqual(['name', 'categoryId']);
    expect(Object.keys(componentSchemas()).sort()).toEqual(['Error', 'NewPet', 'Pet', 'PetStatus', 'Pets']);
  });

  it('declares the properties of each schema through $ref, allOf and items', () => {
    expect([...declaredProperties(componentSchema('Pet'))].sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    expect([...declaredProperties(componentSchema('Pets'))].sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    expect([...declaredProperties(componentSchema('Error'))].sort()).toEqual(['code', 'message', 'status']);
  });
});
