/**
 * search_symbol `attribute` over a real MCP client on real stdio: C# attributes and TS decorators
 * found by name (any spelling: suffix, namespace), with their arguments as written, filtered by
 * argument text, by name query, kinds and scope; pages concatenate; bad input is an error.
 */
import * as assert from 'node:assert/strict';
import { call, callError } from '../helpers/mcpClient';
import { servedTree } from '../helpers/servedTree';
import { symbolRowNames } from '../../server/src/mcp/tools/syntax';

export const ATTRIBUTE_FILES: Record<string, string> = {
  'src/Shop.Api/Shop.Api.csproj': '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>\n',
  'src/Shop.Api/OrdersController.cs': `using Microsoft.AspNetCore.Mvc;
namespace Shop.Api;

[ApiController]
[Route("api/orders")]
public class OrdersController : ControllerBase
{
    [HttpGet("{id}")]
    [ProducesResponseType(typeof(Order), 200)]
    public Order Get(int id) => new Order();

    [HttpGet]
    public Order[] List() => [];

    [HttpPost, Authorize(Roles = "admin")]
    public void Create([FromBody] Order o) { }
}

public class Order
{
    [JsonPropertyName("order_id")]
    public int Id { get; set; }
    [System.Text.Json.Serialization.JsonPropertyNameAttribute("secret")]
    public string Secret { get; set; } = "";
}
`,
  'tests/Shop.Tests/Shop.Tests.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework><IsTestProject>true</IsTestProject></PropertyGroup></Project>\n',
  'tests/Shop.Tests/OrderTests.cs': `using Xunit;
namespace Shop.Tests;
public class OrderTests
{
    [Fact]
    public void Gets() { }

    [Theory]
    [InlineData(1, 2)]
    public void Adds(int a, int b) { }

    [Xunit.FactAttribute]
    public void Lists() { }
}
`,
  'web/order.service.ts': `import { Injectable, Input } from '@angular/core';
@Injectable({ providedIn: 'root' })
export class OrderService {
  @Input() name = '';
  @Get(':id')
  find(id: string) { return id; }
}
`,
};

describe('search_symbol attribute over MCP @e2e', function () {
  const served = servedTree('attrs', ATTRIBUTE_FILES);

  // Rows say the qualified name only when the symbol id does not, and isTest only outside a test file (answers' compact rows).
  const brief = (items: { symbolId: string; path: string; qualifiedName?: string; line: number; attributes: string[]; isTest?: boolean; fileClass?: string }[]) =>
    items.map((i) => `${symbolRowNames(i).qualifiedName}:${i.line} ${i.attributes.join(' ')}${i.isTest || i.fileClass === 'test' ? ' test' : ''}`);

  it('C# attributes by name with their arguments, any spelling of the name', async function () {
    const get = await call(served.c.client, 'search_symbol', { attribute: 'HttpGet' });
    console.log(`      ${get.summary} ${JSON.stringify(brief(get.items))}`);
    assert.deepEqual(brief(get.items), ['Shop.Api.OrdersController.Get:8 HttpGet("{id}")', 'Shop.Api.OrdersController.List:12 HttpGet']);
    assert.equal(get.items[0].symbolId.startsWith('M:Shop.Api.OrdersController.Get(System.Int32)'), true, get.items[0].symbolId);
    assert.equal(get.items[0].match, 'attribute');
    const json = await call(served.c.client, 'search_symbol', { attribute: '[JsonPropertyName]' });
    assert.deepEqual(brief(json.items), ['Shop.Api.Order.Id:21 JsonPropertyName("order_id")', 'Shop.Api.Order.Secret:23 System.Text.Json.Serialization.JsonPropertyNameAttribute("secret")']);
    const byArg = await call(served.c.client, 'search_symbol', { attribute: 'JsonPropertyName("secret")' });
    assert.deepEqual(brief(byArg.items), ['Shop.Api.Order.Secret:23 System.Text.Json.Serialization.JsonPropertyNameAttribute("secret")']);
    const auth = await call(served.c.client, 'search_symbol', { attribute: 'Authorize' });
    assert.deepEqual(brief(auth.items), ['Shop.Api.OrdersController.Create:15 Authorize(Roles = "admin")']);
    const route = await call(served.c.client, 'search_symbol', { attribute: 'Route', kinds: ['class'] });
    assert.deepEqual(brief(route.items), ['Shop.Api.OrdersController:4 Route("api/orders")']);
  });

  it('test attributes: [Fact] in every spelling, scope and name filters', async function () {
    const facts = await call(served.c.client, 'search_symbol', { attribute: 'Fact' });
    assert.deepEqual(brief(facts.items), ['Shop.Tests.OrderTests.Gets:5 Fact test', 'Shop.Tests.OrderTests.Lists:12 Xunit.FactAttribute test']);
    const named = await call(served.c.client, 'search_symbol', { attribute: 'Fact', query: 'list' });
    assert.deepEqual(brief(named.items), ['Shop.Tests.OrderTests.Lists:12 Xunit.FactAttribute test']);
    const prod = await call(served.c.client, 'search_symbol', { attribute: 'Fact', scope: 'production' });
    assert.deepEqual(prod.items, []);
    assert.match(prod.summary, /^No declaration carries \[Fact\]/);
    const inline = await call(served.c.client, 'search_symbol', { attribute: 'InlineData' });
    assert.deepEqual(brief(inline.items), ['Shop.Tests.OrderTests.Adds:8 InlineData(1, 2) test']);
  });

  it('TS decorators with their arguments', async function () {
    const inj = await call(served.c.client, 'search_symbol', { attribute: '@Injectable' });
    assert.deepEqual(brief(inj.items), ["OrderService:2 Injectable({ providedIn: 'root' })"]);
    const get = await call(served.c.client, 'search_symbol', { attribute: 'Get', pathGlob: 'web/**' });
    assert.deepEqual(brief(get.items), ["OrderService.find:5 Get(':id')"]);
    const input = await call(served.c.client, 'search_symbol', { attribute: 'Input' });
    assert.deepEqual(brief(input.items), ['OrderService.name:4 Input']);
  });

  it('pages concatenate to the unpaged answer; bad input is an error with a hint', async function () {
    const whole = await call(served.c.client, 'search_symbol', { attribute: 'HttpGet', limit: 200 });
    const a = await call(served.c.client, 'search_symbol', { attribute: 'HttpGet', limit: 1 });
    const b = await call(served.c.client, 'search_symbol', { attribute: 'HttpGet', limit: 1, cursor: a.nextCursor });
    assert.deepEqual([...a.items, ...b.items], whole.items);
    assert.equal(b.nextCursor, undefined);
    const e1 = await callError(served.c.client, 'search_symbol', { attribute: '((' });
    assert.match(e1, /^Error \[INVALID_ARGUMENT\]: '\(\(' is not an attribute name.* Hint: /);
    const e2 = await callError(served.c.client, 'search_symbol', {});
    assert.match(e2, /^Error \[INVALID_ARGUMENT\]: search_symbol needs a query or an attribute.* Hint: /);
  });
});
