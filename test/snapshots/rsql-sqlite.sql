-- organization: name==acme
select "r"."id" from "organization" as "r" where "r"."name" = ?
-- parameters: ["acme"]

-- organization: name==acme*
select "r"."id" from "organization" as "r" where "r"."name" glob ?
-- parameters: ["acme*"]

-- organization: name=='a_b%c[d?*'
select "r"."id" from "organization" as "r" where "r"."name" glob ?
-- parameters: ["a_b%c[[]d[?]*"]

-- organization: name!=acme
select "r"."id" from "organization" as "r" where ("r"."name" is null or not ("r"."name" = ?))
-- parameters: ["acme"]

-- organization: name=in=(a,b);disabled==false
select "r"."id" from "organization" as "r" where ("r"."name" in (?, ?) and "r"."disabled" = ?)
-- parameters: ["a","b",0]

-- organization: name=out=(a,b),description=isnull=true
select "r"."id" from "organization" as "r" where (("r"."name" is null or "r"."name" not in (?, ?)) or "r"."description" is null)
-- parameters: ["a","b"]

-- organization: name=ini=(Acme,ACME)
select "r"."id" from "organization" as "r" where lower("r"."name") in (?, ?)
-- parameters: ["acme","acme"]

-- organization: createdDate=ge=2026-01-01;createdDate=lt=2026-02-01T00:00:00Z
select "r"."id" from "organization" as "r" where ("r"."created_date" >= ? and "r"."created_date" < ?)
-- parameters: ["2026-01-01T00:00:00.000Z","2026-02-01T00:00:00.000Z"]

-- organization: id==00000000-0000-4000-8000-000000000000
select "r"."id" from "organization" as "r" where "r"."id" = ?
-- parameters: ["00000000-0000-4000-8000-000000000000"]

-- template: organization.name==acme;name==Plan*
select "r"."id" from "template" as "r" where (exists (select 1 from "organization" as "r_1" where "r_1"."id" = "r"."organization_id" and "r_1"."name" = ?) and "r"."name" glob ?)
-- parameters: ["acme","Plan*"]

-- template: (name==a,name==b);(version=isnull=false,description!=x)
select "r"."id" from "template" as "r" where (("r"."name" = ? or "r"."name" = ?) and ("r"."version" is not null or ("r"."description" is null or not ("r"."description" = ?))))
-- parameters: ["a","b","x"]
