import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import yauzl from 'yauzl';
import { GitServer } from './git-server.ts';
import { data, literal, nodes } from './graphql-helpers.ts';
import {
  assertError,
  createOrganization,
  createRecord,
  createVcs,
  describeEachStore,
  eventually,
  type Response,
  type TestServer,
} from './harness.ts';

const mainTf = `variable "region" {
  type        = string
  description = "Where the network lives"
  default     = "eu-west-1"
}

variable "cidr" {
  type      = string
  sensitive = true
}

output "vpc_id" {
  description = "The network's id"
  value       = "vpc-1"
}
`;

const subTf = `variable "zones" {
  type = list(string)
}
`;

/** The files of a zip, by name, as text. */
function unzipped(zip: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error !== null) {
        reject(error);
        return;
      }
      const files: Record<string, string> = {};
      archive.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          archive.readEntry();
          return;
        }
        archive.openReadStream(entry, (failure, stream) => {
          if (failure !== null) {
            reject(failure);
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            files[entry.fileName] = Buffer.concat(chunks).toString('utf8');
            archive.readEntry();
          });
        });
      });
      archive.on('end', () => resolve(files));
      archive.on('error', reject);
      archive.readEntry();
    });
  });
}

/** Where /download says a module version's zip is: the X-Terraform-Get address. */
async function linkOf(server: TestServer, path: string, token?: string): Promise<URL> {
  const download = await server.get(`/terraform/modules/v1/${path}/download`, token === undefined ? {} : { token });
  assert.equal(download.status, 204, download.text);
  return new URL(download.headers.get('x-terraform-get') ?? '');
}

/** Fetches an address as the web UI's unzip does: no Authorization header. */
async function fetchZip(address: URL | string): Promise<{ status: number; headers: Headers; type: string; zip: Buffer; text: string }> {
  const response = await fetch(address);
  const zip = Buffer.from(await response.arrayBuffer());
  const { status, headers } = response;
  return { status, headers, type: headers.get('content-type') ?? '', zip, text: zip.toString('utf8') };
}

/** A refused link: 403, a JSON:API error document. */
function assertRefusedLink(answer: { status: number; headers: Headers; text: string }): void {
  const response: Response = { status: answer.status, headers: answer.headers, text: answer.text, body: JSON.parse(answer.text) };
  const [problem] = assertError(response, 403);
  assert.match(problem?.detail ?? '', /expired|does not sign/);
}

describeEachStore('the private registry', (context) => {
  let git: GitServer;
  let organization: string;
  let organizationName: string;
  let vcs: string;
  let source: string;
  const token = `token-${randomUUID()}`;

  before(async () => {
    git = await GitServer.start(token);
    source = git.repository('network', [
      { files: { 'README.md': '# Network 1.0\n', 'main.tf': mainTf }, tags: ['v1.0.0', 'not-a-version'] },
      {
        files: { 'README.md': '# Network 1.1\n', 'sub/README.md': '# Subnets\n', 'sub/main.tf': subTf },
        tags: ['v1.1.0', 'subnets-v2.0.0'],
      },
    ]);
    organizationName = `org-${randomUUID()}`;
    organization = await createOrganization(context.server, { name: organizationName });
    // The token goes to its connection's own host alone: here the test's git server.
    vcs = await createVcs(context.server, organization, { accessToken: token, endpoint: new URL(source).origin });
  });

  after(async () => {
    await git.stop();
  });

  const modules = () => `/api/v1/organization/${organization}/module`;
  const publish = (
    attributes: Record<string, unknown>,
    relationships: Record<string, unknown> = { vcs: { data: { type: 'vcs', id: vcs } } },
  ) =>
    context.server.post(modules(), {
      data: { type: 'module', attributes: { description: 'A network', provider: 'aws', source, ...attributes }, relationships },
    });

  it('publishes a module from its repository with the VCS connection token, as the Publish Module page sends it', async () => {
    const refusedBefore = git.refused;
    const created = await publish({ name: 'network', folder: null, tagPrefix: null });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.attributes.latestVersion, '1.1.0');
    assert.equal(created.body.data.attributes.registryPath, `${organizationName}/network/aws`);
    assert.equal(created.body.data.attributes.downloadQuantity, 0);
    assert.equal(git.refused, refusedBefore, 'every request to the repository carried the token');

    // The Registry page's list, then the module page.
    const list = await context.server.get(
      `${modules()}?fields[module]=name,description,provider,latestVersion,downloadQuantity,createdDate,updatedDate`,
    );
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((m: { attributes: { name: string } }) => m.attributes.name),
      ['network'],
    );
    const page = await context.server.get(`${modules()}/${created.body.data.id}?include=vcs,version`);
    assert.equal(page.status, 200, page.text);
    const versions = page.body.included.filter((r: { type: string }) => r.type === 'module_version');
    assert.deepEqual(versions.map((v: { attributes: { version: string } }) => v.attributes.version).sort(), ['1.0.0', '1.1.0']);
    const newest = versions.find((v: { attributes: { version: string } }) => v.attributes.version === '1.1.0').attributes;
    assert.equal(newest.gitTag, 'v1.1.0');
    assert.equal(newest.readme, '# Network 1.1\n');
    assert.deepEqual(JSON.parse(newest.inputs), [
      { name: 'cidr', type: 'string', description: null, default: null, required: true, sensitive: true },
      { name: 'region', type: 'string', description: 'Where the network lives', default: 'eu-west-1', required: false, sensitive: false },
    ]);
    assert.deepEqual(JSON.parse(newest.outputs), [{ name: 'vpc_id', description: "The network's id", sensitive: false }]);
    assert.equal(page.body.included.find((r: { type: string }) => r.type === 'vcs').attributes.accessToken, null);
  });

  // A database held by the publish would keep the tag's write waiting for the release that follows it.
  it(
    'reads a repository without holding the database: other requests go on while a publish waits for git',
    { timeout: 60_000 },
    async () => {
      const release = git.hold();
      const publishing = publish({ name: 'slow-network' });
      await eventually('a request reaches the repository', () => assert.ok(git.held > 0));
      // While git has not answered, the organization is written and read as usual.
      const tag = await context.server.post(`/api/v1/organization/${organization}/tag`, {
        data: { type: 'tag', attributes: { name: `t-${randomUUID()}` } },
      });
      assert.equal(tag.status, 201, tag.text);
      assert.equal((await context.server.get(modules())).status, 200);
      release();
      const created = await publishing;
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.latestVersion, '1.1.0');
    },
  );

  it('answers the Terraform registry protocol from the module: discovery, versions, download and README', async () => {
    const discovery = await context.server.get('/.well-known/terraform.json', { token: null });
    assert.equal(discovery.status, 200, discovery.text);
    assert.deepEqual(discovery.body, { 'modules.v1': '/terraform/modules/v1/', 'providers.v1': '/terraform/providers/v1/' });

    const base = `/terraform/modules/v1/${organizationName}/network/aws`;
    const versions = await context.server.get(`${base}/versions`);
    assert.equal(versions.status, 200, versions.text);
    assert.deepEqual(versions.body.modules[0].versions.map((v: { version: string }) => v.version).sort(), ['1.0.0', '1.1.0']);

    const download = await context.server.get(`${base}/1.0.0/download`);
    assert.equal(download.status, 204, download.text);
    const address = new URL(download.headers.get('x-terraform-get') ?? '');
    assert.equal(address.origin, context.server.url, "the zip's address is on the server's own origin");
    assert.equal(address.pathname, `/terraform/modules/v1/download/${organizationName}/network/aws/1.0.0/module.zip`);
    assert.match(download.headers.get('access-control-expose-headers') ?? '', /X-Terraform-Get/);

    const readme = await context.server.get(`/terraform/readme/v1/${organizationName}/network/aws/1.0.0/download`);
    assert.equal(readme.status, 200, readme.text);
    assert.equal(Buffer.from(readme.body.content, 'base64').toString(), '# Network 1.0\n');

    assertError(await context.server.get(`${base}/9.9.9/download`), 404);
    assertError(await context.server.get(`/terraform/modules/v1/${organizationName}/nothing/aws/versions`), 404);
    assertError(await context.server.get(`${base}/versions`, { token: null }), 401);
  });

  it('reads the tags with a prefix, from a folder, and reads them again on a PATCH', async () => {
    const created = await publish({ name: 'subnets', folder: '/sub/', tagPrefix: 'subnets-' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.attributes.latestVersion, '2.0.0');
    const base = `/terraform/modules/v1/${organizationName}/subnets/aws`;
    const subnets = await fetchZip(await linkOf(context.server, `${organizationName}/subnets/aws/2.0.0`));
    assert.equal(subnets.status, 200, subnets.text);
    assert.deepEqual(await unzipped(subnets.zip), { 'README.md': '# Subnets\n', 'main.tf': subTf }, "the folder's files, at the top");
    const readme = await context.server.get(`/terraform/readme/v1/${organizationName}/subnets/aws/2.0.0/download`);
    assert.equal(Buffer.from(readme.body.content, 'base64').toString(), '# Subnets\n');

    git.tag('network', 'subnets-v2.1.0');
    const id = created.body.data.id;
    const refreshed = await context.server.patch(`${modules()}/${id}`, { data: { type: 'module', id, attributes: {} } });
    assert.equal(refreshed.status, 204, refreshed.text);
    const versions = await context.server.get(`${base}/versions`);
    assert.deepEqual(versions.body.modules[0].versions.map((v: { version: string }) => v.version).sort(), ['2.0.0', '2.1.0']);
    const read = await context.server.get(`${modules()}/${id}`);
    assert.equal(read.body.data.attributes.latestVersion, '2.1.0');
  });

  it("serves a module version's files as a zip at the signed address /download names, without a token", async () => {
    const first = await fetchZip(await linkOf(context.server, `${organizationName}/network/aws/1.0.0`));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.type, 'application/zip');
    assert.deepEqual(await unzipped(first.zip), { 'README.md': '# Network 1.0\n', 'main.tf': mainTf });
    // Terraform's downloader tries a HEAD first, and goes on with GET: none is answered, so none reads the repository.
    assert.equal((await fetch(await linkOf(context.server, `${organizationName}/network/aws/1.0.0`), { method: 'HEAD' })).status, 405);
    // Behind a TLS proxy, the scheme it says.
    const proxied = await context.server.get(`/terraform/modules/v1/${organizationName}/network/aws/1.0.0/download`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(new URL(proxied.headers.get('x-terraform-get') ?? '').origin, context.server.url.replace(/^http:/, 'https:'));
    const second = await fetchZip(await linkOf(context.server, `${organizationName}/network/aws/1.1.0`));
    assert.deepEqual(await unzipped(second.zip), {
      'README.md': '# Network 1.1\n',
      'main.tf': mainTf,
      'sub/README.md': '# Subnets\n',
      'sub/main.tf': subTf,
    });
  });

  it('refuses a link that is tampered with, signs another version or names another organization (403)', async () => {
    const link = await linkOf(context.server, `${organizationName}/network/aws/1.0.0`);
    const signature = link.searchParams.get('signature') ?? '';
    const tampered = new URL(link);
    tampered.searchParams.set('signature', `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`);
    assertRefusedLink(await fetchZip(tampered));
    const later = new URL(link);
    later.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 3600));
    assertRefusedLink(await fetchZip(later));
    const otherVersion = new URL(link);
    otherVersion.pathname = link.pathname.replace('/1.0.0/', '/1.1.0/');
    assertRefusedLink(await fetchZip(otherVersion));
    const unsigned = new URL(link);
    unsigned.search = '';
    assertRefusedLink(await fetchZip(unsigned));

    // Another organization's module of the same name: its members get no link, and this one does not reach it.
    const otherName = `org-${randomUUID()}`;
    const other = await createOrganization(context.server, { name: otherName });
    const otherVcs = await createVcs(context.server, other, { accessToken: token, endpoint: new URL(source).origin });
    const foreign = await context.server.post(`/api/v1/organization/${other}/module`, {
      data: {
        type: 'module',
        attributes: { name: 'network', provider: 'aws', source },
        relationships: { vcs: { data: { type: 'vcs', id: otherVcs } } },
      },
    });
    assert.equal(foreign.status, 201, foreign.text);
    const elsewhere = new URL(link);
    elsewhere.pathname = link.pathname.replace(`/${organizationName}/`, `/${otherName}/`);
    assertRefusedLink(await fetchZip(elsewhere));
    const group = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${other}/team`, 'team', { name: group });
    const stranger = await context.server.token({ groups: [group] });
    assertError(await context.server.get(`/terraform/modules/v1/${organizationName}/network/aws/1.0.0/download`, { token: stranger }), 404);
  });

  it('counts the downloads /download answers, every one of many at once', async () => {
    const list = async () =>
      (await context.server.get(`${modules()}?filter[module]=name==network`)).body.data[0].attributes.downloadQuantity as number;
    const before = await list();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => context.server.get(`/terraform/modules/v1/${organizationName}/network/aws/1.0.0/download`)),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 204),
    );
    assert.equal(await list(), before + 12);
  });

  it('refuses to serve a version whose tag names other code than when it was read (409)', async () => {
    const moving = git.repository('moving', [{ files: { 'main.tf': 'variable "a" {}\n' }, tags: ['v1.0.0'] }]);
    const created = await publish({ name: 'moving', source: moving });
    assert.equal(created.status, 201, created.text);
    const link = await linkOf(context.server, `${organizationName}/moving/aws/1.0.0`);
    assert.equal((await fetchZip(link)).status, 200);
    git.moveTag('moving', 'v1.0.0');
    const moved = await fetchZip(link);
    assert.equal(moved.status, 409, moved.text);
    assert.match(moved.text, /module_version_moved/);
    // Read again, the version names the new commit, and is served.
    const id = created.body.data.id;
    assert.equal((await context.server.patch(`${modules()}/${id}`, { data: { type: 'module', id, attributes: {} } })).status, 204);
    assert.equal((await fetchZip(await linkOf(context.server, `${organizationName}/moving/aws/1.0.0`))).status, 200);
  });

  it('refuses a source git cannot read, or must not, and names the attribute', async () => {
    const fileSource = await publish({ name: 'local', source: 'file:///etc' });
    assert.match(assertError(fileSource, 422, '/data/attributes/source')[0]?.detail ?? '', /https or ssh/);
    const missing = await publish({ name: 'missing', source: git.url('missing') });
    assertError(missing, 422, '/data/attributes/source');
    const refusedBefore = git.refused;
    const withoutToken = await publish({ name: 'anonymous' }, {});
    const [problem] = assertError(withoutToken, 422, '/data/attributes/source');
    assert.match(problem?.detail ?? '', /could not be read/);
    assert.ok(git.refused > refusedBefore, 'the repository refused the request without a token');
    assert.doesNotMatch(JSON.stringify(withoutToken.body), new RegExp(token));
    assertError(await publish({ name: 'bad name!' }), 422, '/data/attributes/name');
    assertError(await publish({ name: 'unknown', color: 'blue' }), 400);
    const list = await context.server.get(`${modules()}?filter[module]=name=in=(missing,anonymous,local)`);
    assert.deepEqual(list.body.data, [], 'no module was stored by a refused publish');
  });

  it('refuses a new source it cannot read (422), and says when a repository read before is gone (502)', async () => {
    const vanishing = git.repository('vanishing', [{ files: { 'main.tf': '' }, tags: ['v0.1.0'] }]);
    const created = await publish({ name: 'vanishing', source: vanishing });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const moved = await context.server.patch(`${modules()}/${id}`, {
      data: { type: 'module', id, attributes: { source: git.url('nowhere') } },
    });
    assertError(moved, 422, '/data/attributes/source');
    git.remove('vanishing');
    const refreshed = await context.server.patch(`${modules()}/${id}`, { data: { type: 'module', id, attributes: {} } });
    const [problem] = assertError(refreshed, 502);
    assert.match(problem?.detail ?? '', /could not be read/);
    const versions = await context.server.get(`/terraform/modules/v1/${organizationName}/vanishing/aws/versions`);
    assert.deepEqual(versions.body.modules[0].versions, [{ version: '0.1.0' }], 'a failed read changes nothing');
  });

  it("sends a VCS connection's token to its own host alone: a source elsewhere is read without it", async () => {
    // A GitHub connection without an endpoint of its own: its token belongs to github.com, not to this source's host.
    const github = await createVcs(context.server, organization, { accessToken: token });
    const refusedBefore = git.refused;
    const elsewhere = await publish({ name: 'elsewhere' }, { vcs: { data: { type: 'vcs', id: github } } });
    assertError(elsewhere, 422, '/data/attributes/source');
    assert.ok(git.refused > refusedBefore, 'the repository was asked without the token');
    // Named as the connection's endpoint, the same host gets it.
    const own = await createVcs(context.server, organization, { accessToken: token, endpoint: `${new URL(source).origin}/` });
    const published = await publish({ name: 'own-endpoint' }, { vcs: { data: { type: 'vcs', id: own } } });
    assert.equal(published.status, 201, published.text);
  });

  it("refuses another organization's VCS connection, and shows nothing to another organization's member", async () => {
    const other = await createOrganization(context.server);
    const otherVcs = await createVcs(context.server, other, { accessToken: token, endpoint: new URL(source).origin });
    const foreign = await publish({ name: 'foreign' }, { vcs: { data: { type: 'vcs', id: otherVcs } } });
    assert.ok([404, 422].includes(foreign.status), foreign.text);

    const group = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${other}/team`, 'team', {
      name: group,
      manageModule: true,
      manageProvider: true,
    });
    const stranger = await context.server.token({ groups: [group] });
    assertError(await context.server.get(modules(), { token: stranger }), 404);
    assertError(await context.server.get(`/terraform/modules/v1/${organizationName}/network/aws/versions`, { token: stranger }), 404);
    assertError(await context.server.get(`/terraform/providers/v1/${organizationName}/random/versions`, { token: stranger }), 404);
  });

  it('keeps providers with their versions and builds, written by a team with manageProvider, and serves them to Terraform', async () => {
    const group = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: group, manageProvider: true });
    const manager = await context.server.token({ groups: [group] });
    const readerGroup = `team-${randomUUID()}`;
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', { name: readerGroup });
    const reader = await context.server.token({ groups: [readerGroup] });

    const providers = `/api/v1/organization/${organization}/provider`;
    assertError(
      await context.server.post(providers, { data: { type: 'provider', attributes: { name: 'random' } } }, { token: reader }),
      403,
    );
    const provider = await context.server.post(
      providers,
      { data: { type: 'provider', attributes: { name: 'random', description: 'Random values' } } },
      { token: manager },
    );
    assert.equal(provider.status, 201, provider.text);
    const providerId = provider.body.data.id;
    const version = await context.server.post(
      `${providers}/${providerId}/version`,
      { data: { type: 'version', attributes: { versionNumber: '3.6.0', protocols: '5.0,6.0' } } },
      { token: manager },
    );
    assert.equal(version.status, 201, version.text);
    const build = {
      os: 'linux',
      arch: 'amd64',
      filename: 'terraform-provider-random_3.6.0_linux_amd64.zip',
      downloadUrl: 'https://files.example.com/random_3.6.0_linux_amd64.zip',
      shasumsUrl: 'https://files.example.com/random_3.6.0_SHA256SUMS',
      shasumsSignatureUrl: 'https://files.example.com/random_3.6.0_SHA256SUMS.sig',
      shasum: 'a'.repeat(64),
      keyId: '34365D9472D7468F',
      asciiArmor: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n...\n-----END PGP PUBLIC KEY BLOCK-----',
      trustSignature: '',
      source: 'HashiCorp',
      sourceUrl: 'https://www.hashicorp.com/security.html',
    };
    const implementation = await context.server.post(
      `${providers}/${providerId}/version/${version.body.data.id}/implementation`,
      { data: { type: 'implementation', attributes: build } },
      { token: manager },
    );
    assert.equal(implementation.status, 201, implementation.text);
    assertError(
      await context.server.post(`${providers}/${providerId}/version/${version.body.data.id}/implementation`, {
        data: { type: 'implementation', attributes: { os: 'linux' } },
      }),
      422,
    );

    // The Registry page's providers tab.
    const listed = await context.server.get(`${providers}?include=version`, { token: reader });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.included[0].attributes.versionNumber, '3.6.0');
    assert.equal(listed.body.included[0].relationships.provider.data.id, providerId);

    const versions = await context.server.get(`/terraform/providers/v1/${organizationName}/random/versions`, { token: reader });
    assert.equal(versions.status, 200, versions.text);
    assert.deepEqual(versions.body, {
      versions: [{ version: '3.6.0', protocols: ['5.0', '6.0'], platforms: [{ os: 'linux', arch: 'amd64' }] }],
    });
    const download = await context.server.get(`/terraform/providers/v1/${organizationName}/random/3.6.0/download/linux/amd64`, {
      token: reader,
    });
    assert.equal(download.status, 200, download.text);
    assert.equal(download.body.download_url, build.downloadUrl);
    assert.equal(download.body.shasum, build.shasum);
    assert.deepEqual(download.body.signing_keys.gpg_public_keys[0], {
      key_id: build.keyId,
      ascii_armor: build.asciiArmor,
      trust_signature: '',
      source: 'HashiCorp',
      source_url: build.sourceUrl,
    });
    assertError(await context.server.get(`/terraform/providers/v1/${organizationName}/random/3.6.0/download/darwin/arm64`), 404);
  });

  it("reads the organization's modules with their versions, and providers, through GraphQL, as Terrakube names them", async () => {
    const answer = await data(
      context.server,
      `{ organization(ids: [${literal(organization)}]) { edges { node { module(filter: "name==network") { edges { node { name provider latestVersion registryPath version { edges { node { version gitTag } } } } } } provider { edges { node { name version { edges { node { versionNumber implementation { edges { node { os arch } } } } } } } } } } } } }`,
    );
    const [found] = nodes(answer.organization);
    const [network] = nodes(found?.module as never);
    assert.ok(network !== undefined);
    assert.equal(network.latestVersion, '1.1.0');
    assert.deepEqual(
      nodes(network.version as never)
        .map((v) => v.gitTag)
        .sort(),
      ['v1.0.0', 'v1.1.0'],
    );
    const [random] = nodes(found?.provider as never);
    const [version] = nodes(random?.version as never);
    assert.deepEqual(nodes(version?.implementation as never), [{ os: 'linux', arch: 'amd64' }]);
  });

  it('says clearly that the public registry is not searched', async () => {
    const search = await context.server.get('/registry/v1/providers/hashicorp/aws/versions');
    const [problem] = assertError(search, 404);
    assert.match(problem?.detail ?? '', /public registry/);
  });
});

describeEachStore('links to module archives', { env: { STRATUM_MODULE_LINK_SECONDS: '1' } }, (context) => {
  let git: GitServer;

  before(async () => {
    git = await GitServer.start();
  });

  after(async () => {
    await git.stop();
  });

  it('refuses a link once its lifetime (STRATUM_MODULE_LINK_SECONDS) has passed (403)', async () => {
    const source = git.repository('network', [{ files: { 'main.tf': mainTf }, tags: ['v1.0.0'] }]);
    const name = `org-${randomUUID()}`;
    const organization = await createOrganization(context.server, { name });
    const created = await context.server.post(`/api/v1/organization/${organization}/module`, {
      data: { type: 'module', attributes: { name: 'network', provider: 'aws', source } },
    });
    assert.equal(created.status, 201, created.text);
    const link = await linkOf(context.server, `${name}/network/aws/1.0.0`);
    assert.ok(Number(link.searchParams.get('expires')) <= Date.now() / 1000 + 1, 'the link serves a second at most');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assertRefusedLink(await fetchZip(link));
  });
});
