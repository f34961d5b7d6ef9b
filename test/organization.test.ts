import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createOrganization, describeEachStore, resourceDocument } from './harness.ts';

describeEachStore('organizations', (context) => {
  it('an administrator creates an organization and gets it back as sent, with 201', async () => {
    const response = await context.server.post(
      '/api/v1/organization',
      resourceDocument('organization', { name: 'acme', description: null, executionMode: 'local', icon: null, disabled: false }),
    );
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
    const data = response.body.data;
    assert.equal(data.type, 'organization');
    assert.match(data.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...data.attributes, createdDate: undefined, updatedDate: undefined },
      {
        name: 'acme',
        description: null,
        executionMode: 'local',
        icon: null,
        disabled: false,
        createdBy: 'admin@example.com',
        updatedBy: 'admin@example.com',
        createdDate: undefined,
        updatedDate: undefined,
      },
    );
    assert.match(data.attributes.createdDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(response.headers.get('location'), `/api/v1/organization/${data.id}`);

    const read = await context.server.get(`/api/v1/organization/${data.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, data);
  });

  it('a new organization starts with the Plan, Plan and apply and Destroy templates', async () => {
    const id = await createOrganization(context.server);
    const response = await context.server.get(`/api/v1/organization/${id}/template`);
    assert.equal(response.status, 200);
    const names = response.body.data.map((t: { attributes: { name: string } }) => t.attributes.name);
    assert.deepEqual(names, ['Plan', 'Plan and apply', 'Destroy']);
    for (const template of response.body.data) {
      const yaml = Buffer.from(template.attributes.tcl, 'base64').toString();
      assert.match(yaml, /^flow:\n {2}- type: "terraform(Plan|Apply|Destroy)"/);
      assert.deepEqual(template.relationships.organization.data, { type: 'organization', id });
    }
  });

  it('omitted optional attributes take their defaults and description defaults to null', async () => {
    const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'defaults-org' }));
    assert.equal(response.status, 201);
    assert.equal(response.body.data.attributes.description, null);
    assert.equal(response.body.data.attributes.executionMode, 'remote');
    assert.equal(response.body.data.attributes.disabled, false);
  });

  it('PATCH changes only what it sends and answers 204 with no body', async () => {
    const id = await createOrganization(context.server, { description: 'first' });
    const response = await context.server.patch(
      `/api/v1/organization/${id}`,
      resourceDocument('organization', { icon: 'cloud:#fff' }, { id }),
    );
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    const read = await context.server.get(`/api/v1/organization/${id}`);
    assert.equal(read.body.data.attributes.description, 'first');
    assert.equal(read.body.data.attributes.icon, 'cloud:#fff');
  });

  it('PATCH disabled: true (as the UI sends it, a string) soft-deletes the organization and frees its name', async () => {
    const id = await createOrganization(context.server, { name: 'to-disable' });
    const response = await context.server.patch(
      `/api/v1/organization/${id}`,
      resourceDocument('organization', { disabled: 'true' }, { id }),
    );
    assert.equal(response.status, 204);
    const read = await context.server.get(`/api/v1/organization/${id}`);
    assert.equal(read.status, 404);
    assert.equal(read.body.errors[0].detail, `Unknown identifier ${id} for organization`);
    assert.equal((await context.server.get(`/api/v1/organization/${id}/template`)).status, 404);
    const list = await context.server.get('/api/v1/organization?filter[organization]=name==to-disable');
    assert.deepEqual(list.body.data, []);
    const again = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'to-disable' }));
    assert.equal(again.status, 201);
  });

  it('DELETE removes the organization and its templates in one go', async () => {
    const id = await createOrganization(context.server);
    const templates = await context.server.get(`/api/v1/organization/${id}/template`);
    const templateId = templates.body.data[0].id as string;
    const response = await context.server.delete(`/api/v1/organization/${id}`);
    assert.equal(response.status, 204);
    assert.equal((await context.server.get(`/api/v1/organization/${id}`)).status, 404);
    assert.equal((await context.server.get(`/api/v1/organization/${id}/template/${templateId}`)).status, 404);
  });

  it('a duplicate name is a 409 naming the field', async () => {
    await createOrganization(context.server, { name: 'dup-org' });
    const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'dup-org' }));
    assert.equal(response.status, 409);
    assert.equal(response.body.errors[0].source.pointer, '/data/attributes/name');
    const list = await context.server.get('/api/v1/organization?filter[organization]=name==dup-org');
    assert.equal(list.body.data.length, 1);
  });

  it('a non-administrator cannot create an organization (403) and nothing is created', async () => {
    const token = await context.server.token({ groups: ['developers'] });
    const response = await context.server.post('/api/v1/organization', resourceDocument('organization', { name: 'not-allowed' }), {
      token,
    });
    assert.equal(response.status, 403);
    const list = await context.server.get('/api/v1/organization?filter[organization]=name==not-allowed');
    assert.deepEqual(list.body.data, []);
  });

  it('a non-member sees no organization: an empty list, and 404 on read, update and delete', async () => {
    const id = await createOrganization(context.server, { name: 'hidden-org' });
    const token = await context.server.token({ groups: ['developers'] });
    const list = await context.server.get('/api/v1/organization', { token });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    assert.equal((await context.server.get(`/api/v1/organization/${id}`, { token })).status, 404);
    const patch = await context.server.patch(`/api/v1/organization/${id}`, resourceDocument('organization', { name: 'taken-over' }), {
      token,
    });
    assert.equal(patch.status, 404);
    assert.equal((await context.server.delete(`/api/v1/organization/${id}`, { token })).status, 404);
    const read = await context.server.get(`/api/v1/organization/${id}`);
    assert.equal(read.body.data.attributes.name, 'hidden-org');
  });

  it('a path id that is not a UUID is a 404 like any unknown id', async () => {
    const response = await context.server.get('/api/v1/organization/not-a-uuid');
    assert.equal(response.status, 404);
    assert.equal(response.body.errors[0].detail, 'Unknown identifier not-a-uuid for organization');
  });

  it('single reads carry an ETag; If-None-Match gives 304 and a stale If-Match gives 412', async () => {
    const id = await createOrganization(context.server);
    const read = await context.server.get(`/api/v1/organization/${id}`);
    const etag = read.headers.get('etag');
    assert.ok(etag);
    const notModified = await context.server.get(`/api/v1/organization/${id}`, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    const first = await context.server.patch(`/api/v1/organization/${id}`, resourceDocument('organization', { description: 'v2' }), {
      headers: { 'if-match': etag },
    });
    assert.equal(first.status, 204);
    const stale = await context.server.patch(`/api/v1/organization/${id}`, resourceDocument('organization', { description: 'v3' }), {
      headers: { 'if-match': etag },
    });
    assert.equal(stale.status, 412);
    assert.equal((await context.server.get(`/api/v1/organization/${id}`)).body.data.attributes.description, 'v2');
  });

  it('a read with include is revalidated against what it includes: a new, changed or deleted included record is not a 304', async () => {
    // Terrakube's workspace page re-reads the workspace with include=...,schedule after adding a
    // schedule; the browser revalidates with If-None-Match, and a 304 would keep the old list.
    const id = await createOrganization(context.server);
    const url = `/api/v1/organization/${id}?include=template`;
    const tagOf = async () => {
      const response = await context.server.get(url);
      assert.equal(response.status, 200);
      return String(response.headers.get('etag'));
    };
    const first = await tagOf();
    assert.equal((await context.server.get(url, { headers: { 'if-none-match': first } })).status, 304);
    const templates = `/api/v1/organization/${id}/template`;
    const added = await context.server.post(templates, resourceDocument('template', { name: 'extra', tcl: 'Zmxvdzog' }));
    assert.equal(added.status, 201);
    const afterAdd = await context.server.get(url, { headers: { 'if-none-match': first } });
    assert.equal(afterAdd.status, 200);
    assert.equal(afterAdd.body.included.length, 4);
    const second = String(afterAdd.headers.get('etag'));
    const template = String(added.body.data.id);
    const changed = await context.server.patch(`${templates}/${template}`, resourceDocument('template', { description: 'changed' }));
    assert.equal(changed.status, 204);
    assert.equal((await context.server.get(url, { headers: { 'if-none-match': second } })).status, 200);
    const third = await tagOf();
    assert.equal((await context.server.delete(`${templates}/${template}`)).status, 204);
    assert.equal((await context.server.get(url, { headers: { 'if-none-match': third } })).status, 200);
    // The record alone keeps its own tag: its document holds nothing else.
    const plain = String((await context.server.get(`/api/v1/organization/${id}`)).headers.get('etag'));
    assert.equal((await context.server.get(`/api/v1/organization/${id}`, { headers: { 'if-none-match': plain } })).status, 304);
  });

  it('include=template lists the templates with linkage in relationships', async () => {
    const id = await createOrganization(context.server);
    const response = await context.server.get(`/api/v1/organization/${id}?include=template`);
    assert.equal(response.status, 200);
    assert.equal(response.body.data.relationships.template.data.length, 3);
    assert.equal(response.body.included.length, 3);
    assert.ok(response.body.included.every((t: { type: string }) => t.type === 'template'));
    const plain = await context.server.get(`/api/v1/organization/${id}`);
    assert.equal(plain.body.data.relationships.template, undefined);
    assert.equal(plain.body.included, undefined);
  });
});
