import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createOrganization, createTemplate, describeEachStore } from './harness.ts';

const names = ['alpha', 'Alpha', 'beta', 'a b c', 'under_score', 'per%cent', 'brack[et', 'q?mark', 'gamma', 'delta'];

describeEachStore('paging, filters and sorting', (context) => {
  const ids: Record<string, string> = {};
  let organizationId = '';
  before(async () => {
    for (const [index, name] of names.entries()) {
      ids[name] = await createOrganization(context.server, { name, description: index % 2 === 0 ? null : `described ${name}` });
    }
    organizationId = ids.alpha ?? '';
    await createTemplate(context.server, organizationId, { name: 'My Template' });
  });

  const namesOf = (body: { data: { attributes: { name: string } }[] }) => body.data.map((r) => r.attributes.name);
  const list = async (query: string) => {
    const response = await context.server.get(`/api/v1/organization?${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  };

  it('lists in creation order by default, and pages by number and size without overlap or gap', async () => {
    assert.deepEqual(namesOf(await list('')), names);
    const pages = [];
    for (let number = 1; number <= 4; number++) pages.push(...namesOf(await list(`page[number]=${number}&page[size]=3`)));
    assert.deepEqual(pages, names);
  });

  it('meta.page is given only with a page parameter, and page[totals] counts what the filter keeps', async () => {
    assert.equal((await list('')).meta, undefined);
    assert.deepEqual((await list('page[size]=4')).meta, { page: { number: 1, limit: 4 } });
    const totals = await list('page[size]=4&page[number]=2&page[totals]');
    assert.deepEqual(totals.meta, { page: { number: 2, limit: 4, totalPages: 3, totalRecords: 10 } });
    const filtered = await list('page[totals]=yes&filter[organization]=name==*a*');
    assert.equal(filtered.meta.page.totalRecords, filtered.data.length);
  });

  it('offset paging returns the slice asked for, with number = offset / limit + 1', async () => {
    const body = await list('page[offset]=4&page[limit]=3');
    assert.deepEqual(namesOf(body), names.slice(4, 7));
    assert.deepEqual(body.meta.page, { number: 2, limit: 3 });
  });

  it('links lead to the neighbouring pages in the style the client used', async () => {
    const body = await list('page[number]=2&page[size]=3&page[totals]');
    assert.equal(body.links.next, '/api/v1/organization?page%5Btotals%5D=&page%5Bnumber%5D=3&page%5Bsize%5D=3');
    assert.equal(body.links.prev, '/api/v1/organization?page%5Btotals%5D=&page%5Bnumber%5D=1&page%5Bsize%5D=3');
    assert.equal(body.links.last, '/api/v1/organization?page%5Btotals%5D=&page%5Bnumber%5D=4&page%5Bsize%5D=3');
    const next = await context.server.get(body.links.next);
    assert.deepEqual(namesOf(next.body), names.slice(6, 9));
    const last = await list('page[offset]=9&page[limit]=3');
    assert.equal(last.links.next, undefined);
  });

  it('links are form-urlencoded, brackets included (RFC 3986 allows no raw [ or ] in a query), and keep the filter', async () => {
    const filter = `filter[organization]=${encodeURIComponent("name=in=('brack[et','a b c','per%cent','q?mark','alpha')")}`;
    const first = await list(`${filter}&sort=name&page[offset]=0&page[limit]=2`);
    for (const link of Object.values(first.links as Record<string, string>)) {
      assert.doesNotMatch(link.split('?')[1] ?? '', /[[\] ]/, link);
    }
    assert.match(first.links.next, /[?&]filter%5Borganization%5D=/);
    assert.match(first.links.next, /[?&]page%5Boffset%5D=2&page%5Blimit%5D=2$/);
    const seen = [...namesOf(first)];
    for (let link: string | undefined = first.links.next; link !== undefined;) {
      const page = await context.server.get(link);
      assert.equal(page.status, 200, page.text);
      seen.push(...namesOf(page.body));
      link = page.body.links.next;
    }
    assert.deepEqual(seen, ['a b c', 'alpha', 'brack[et', 'per%cent', 'q?mark']);
  });

  it('rejects page sizes over 10000, non-positive or non-integer values, mixed styles and unknown page keys', async () => {
    for (const query of [
      'page[size]=10001',
      'page[limit]=10001',
      'page[size]=0',
      'page[number]=0',
      'page[size]=-1',
      'page[size]=2.5',
      'page[number]=1&page[limit]=5',
      'page[foo]=1',
    ]) {
      const response = await context.server.get(`/api/v1/organization?${query}`);
      assert.equal(response.status, 400, query);
      assert.ok(response.body.errors[0].source.parameter, query);
    }
  });

  it('sorts in binary order on both stores, descending with -, and refuses unknown fields', async () => {
    const sorted = namesOf(await list('sort=name'));
    assert.deepEqual(sorted, [...names].sort());
    assert.deepEqual(namesOf(await list('sort=-name')), [...names].sort().reverse());
    assert.equal((await context.server.get('/api/v1/organization?sort=nope')).status, 400);
  });

  it('== is exact and case-sensitive, and * wildcards leave every other character literal', async () => {
    assert.deepEqual(namesOf(await list('filter[organization]=name==alpha')), ['alpha']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==Alph*')), ['Alpha']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==*eta')), ['beta']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==*_*')), ['under_score']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==*%25*')), ['per%cent']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==*[*')), ['brack[et']);
    assert.deepEqual(namesOf(await list('filter[organization]=name==*?*')), ['q?mark']);
    assert.deepEqual(namesOf(await list("filter[organization]=name=='a b c'")), ['a b c']);
    assert.deepEqual(namesOf(await list('filter[organization]=name=="a b c"')), ['a b c']);
  });

  it('!=, =in=, =out=, =ini=, =isnull= and the logical operators select the right records', async () => {
    assert.equal((await list('filter[organization]=name!=alpha')).data.length, 9);
    assert.deepEqual(namesOf(await list('filter[organization]=name=in=(beta,gamma)')), ['beta', 'gamma']);
    assert.equal((await list('filter[organization]=name=out=(beta,gamma)')).data.length, 8);
    assert.deepEqual(namesOf(await list('filter[organization]=name=ini=(ALPHA)')), ['alpha', 'Alpha']);
    assert.equal((await list('filter[organization]=description=isnull=true')).data.length, 5);
    // != keeps the records whose attribute is null: they are not equal to the value.
    assert.equal((await list('filter[organization]=description!=x')).data.length, 10);
    assert.deepEqual(namesOf(await list('filter=name==alpha,name==beta')), ['alpha', 'beta']);
    assert.deepEqual(namesOf(await list('filter=(name==alpha,name==Alpha);description=isnull=true')), ['alpha']);
    assert.deepEqual(namesOf(await list('filter=name==beta and disabled==false')), ['beta']);
  });

  it('compares dates, and follows to-one relationships in filter paths', async () => {
    const first = (await list('filter[organization]=name==alpha')).data[0].attributes.createdDate as string;
    assert.equal((await list(`filter[organization]=createdDate=gt=${first}`)).data.length, 9);
    const templates = await context.server.get(
      `/api/v1/organization/${organizationId}/template?filter=organization.name==alpha;name=='My%20Template'`,
    );
    assert.deepEqual(namesOf(templates.body), ['My Template']);
    const none = await context.server.get(`/api/v1/organization/${organizationId}/template?filter=organization.name==beta`);
    assert.deepEqual(none.body.data, []);
  });

  it("finds a template by the Terraform provider's quoted, percent-encoded filter", async () => {
    const response = await context.server.get(`/api/v1/organization/${organizationId}/template?filter[template]=name=='My%20Template'`);
    assert.deepEqual(namesOf(response.body), ['My Template']);
  });

  it('answers 400 naming the parameter for bad RSQL, unknown fields and operators, and filters over the limits', async () => {
    const bad = [
      ['filter', 'name=='],
      ['filter[organization]', 'nope==1'],
      ['filter[organization]', 'name=foo=x'],
      ['filter[organization]', 'name=isnull=maybe'],
      ['filter[organization]', 'disabled==yes'],
      ['filter[organization]', `name==${'x'.repeat(4097)}`],
      ['filter[organization]', Array.from({ length: 101 }, () => 'name==a').join(';')],
      ['filter[organization]', `${'('.repeat(11)}name==a${')'.repeat(11)}`],
      ['filter[nope]', 'name==a'],
    ];
    for (const [parameter, value] of bad) {
      const response = await context.server.get(`/api/v1/organization?${parameter}=${encodeURIComponent(value ?? '')}`);
      assert.equal(response.status, 400, `${parameter}=${(value ?? '').slice(0, 40)}`);
      assert.equal(response.body.errors[0].source.parameter, parameter);
    }
  });

  it('trims attributes with fields[TYPE] and includes related records, narrowed by filter[TYPE]', async () => {
    const trimmed = await list('fields[organization]=name&filter[organization]=name==beta');
    assert.deepEqual(trimmed.data[0].attributes, { name: 'beta' });
    assert.equal((await context.server.get('/api/v1/organization?fields[organization]=nope')).status, 400);
    const included = await list(`filter[organization]=name==alpha&include=template&filter[template]=name=='My Template'`);
    assert.deepEqual(included.data[0].relationships.template.data.length, 1);
    assert.deepEqual(namesOf({ data: included.included }), ['My Template']);
    assert.equal((await context.server.get('/api/v1/organization?include=job')).status, 200);
    assert.equal((await context.server.get('/api/v1/organization?include=nonsense')).status, 400);
  });

  it('counts only what the caller may see: a non-member gets no rows and a total of 0', async () => {
    const token = await context.server.token({ groups: ['developers'] });
    const response = await context.server.get('/api/v1/organization?page[totals]', { token });
    assert.deepEqual(response.body.data, []);
    assert.equal(response.body.meta.page.totalRecords, 0);
  });
});
