-- {"kind":"record","type":"organization","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where "r"."id" = $1 and ("r"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in ($2, $3)))

-- {"kind":"record","type":"organization","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where "r"."id" = $1 and ("r"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in ($2, $3))) for update

-- {"kind":"record","type":"organization","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "organization" as "r" where "r"."id" = $1 and ("r"."disabled" = 0 and 1 = 1)

-- {"kind":"insert","type":"organization","columns":["id","name","description","execution_mode","icon","disabled","created_by","created_date","updated_by","updated_date"]}
insert into "organization" ("id", "name", "description", "execution_mode", "icon", "disabled", "created_by", "created_date", "updated_by", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *

-- {"kind":"page","type":"organization","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where ("r"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in ($1, $2))) order by "r"."created_date" asc, "r"."id" asc limit $3 offset $4

-- {"kind":"page","type":"organization","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "organization" as "r" where ("r"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in ($1, $2))) order by "r"."created_date" asc, "r"."id" asc limit $3 offset $4

-- {"kind":"record","type":"template","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"template","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"template","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "template" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"template","columns":["id","organization_id","name","description","version","tcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "template" ("id", "organization_id", "name", "description", "version", "tcl", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "version", $6 as "tcl", $7 as "created_by", $8 as "created_date", $9 as "updated_by", $10 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $11 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($12, $13)))) returning *

-- {"kind":"page","type":"template","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"template","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "template" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"collection","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"collection","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"collection","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "collection" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"collection","columns":["id","organization_id","name","description","priority","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "collection" ("id", "organization_id", "name", "description", "priority", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "priority", $6 as "created_by", $7 as "created_date", $8 as "updated_by", $9 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $10 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($11, $12)))) returning *

-- {"kind":"page","type":"collection","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"collection","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "collection" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"item","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5)))))))

-- {"kind":"record","type":"item","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5))))))) for update

-- {"kind":"record","type":"item","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "item" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and 1 = 1)))))

-- {"kind":"insert","type":"item","columns":["id","collection_id","key","value","description","category","sensitive","hcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"collection","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "item" ("id", "collection_id", "key", "value", "description", "category", "sensitive", "hcl", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "collection_id", $3 as "key", $4 as "value", $5 as "description", $6 as "category", $7 as "sensitive", $8 as "hcl", $9 as "created_by", $10 as "created_date", $11 as "updated_by", $12 as "updated_date" where exists (select 1 as "one" from "collection" as "p" where "p"."id" = $13 and ("p"."organization_id" = $14 and exists (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in ($15, $16)))))) returning *

-- {"kind":"page","type":"item","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where ("r"."collection_id" = $1 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = $2 and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5))))))) order by "r"."created_date" asc, "r"."id" asc limit $6 offset $7

-- {"kind":"page","type":"item","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "item" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"reference","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($6, $7)))))))

-- {"kind":"record","type":"reference","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($6, $7))))))) for update

-- {"kind":"record","type":"reference","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "reference" as "r" where "r"."id" = $1 and ("r"."collection_id" = $2 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and 1 = 1)))) and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1)))))

-- {"kind":"insert","type":"reference","columns":["id","collection_id","description","created_by","created_date","updated_by","updated_date"],"under":{"type":"collection","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "reference" ("id", "collection_id", "description", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "collection_id", $3 as "description", $4 as "created_by", $5 as "created_date", $6 as "updated_by", $7 as "updated_date" where exists (select 1 as "one" from "collection" as "p" where "p"."id" = $8 and ("p"."organization_id" = $9 and exists (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in ($10, $11)))))) returning *

-- {"kind":"page","type":"reference","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where ("r"."collection_id" = $1 and exists (select 1 from "collection" as "r_collection" where "r_collection"."id" = $2 and ("r_collection"."organization_id" = $3 and exists (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($6, $7))))))) order by "r"."created_date" asc, "r"."id" asc limit $8 offset $9

-- {"kind":"page","type":"reference","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "reference" as "r" where (exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($1, $2))))))) order by "r"."created_date" asc, "r"."id" asc limit $3 offset $4

-- {"kind":"record","type":"workspace","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where "r"."id" = $1 and ("r"."deleted" = 0 and "r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"workspace","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where "r"."id" = $1 and ("r"."deleted" = 0 and "r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"workspace","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "workspace" as "r" where "r"."id" = $1 and ("r"."deleted" = 0 and "r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"workspace","columns":["id","organization_id","name","description","source","branch","folder","default_template","iac_type","terraform_version","execution_mode","allow_remote_apply","global_remote_state","shared_ids","module_ssh_key","locked","lock_description","deleted","last_job_status","last_job_date","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "workspace" ("id", "organization_id", "name", "description", "source", "branch", "folder", "default_template", "iac_type", "terraform_version", "execution_mode", "allow_remote_apply", "global_remote_state", "shared_ids", "module_ssh_key", "locked", "lock_description", "deleted", "last_job_status", "last_job_date", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "source", $6 as "branch", $7 as "folder", $8 as "default_template", $9 as "iac_type", $10 as "terraform_version", $11 as "execution_mode", $12 as "allow_remote_apply", $13 as "global_remote_state", $14 as "shared_ids", $15 as "module_ssh_key", $16 as "locked", $17 as "lock_description", $18 as "deleted", $19 as "last_job_status", $20 as "last_job_date", $21 as "created_by", $22 as "created_date", $23 as "updated_by", $24 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $25 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($26, $27)))) returning *

-- {"kind":"page","type":"workspace","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where ("r"."deleted" = 0 and "r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"workspace","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "workspace" as "r" where ("r"."deleted" = 0) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"variable","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5)))))))

-- {"kind":"record","type":"variable","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5))))))) for update

-- {"kind":"record","type":"variable","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "variable" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1)))))

-- {"kind":"insert","type":"variable","columns":["id","workspace_id","key","value","description","category","sensitive","hcl","incomplete","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "variable" ("id", "workspace_id", "key", "value", "description", "category", "sensitive", "hcl", "incomplete", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "workspace_id", $3 as "key", $4 as "value", $5 as "description", $6 as "category", $7 as "sensitive", $8 as "hcl", $9 as "incomplete", $10 as "created_by", $11 as "created_date", $12 as "updated_by", $13 as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = $14 and ("p"."deleted" = 0 and "p"."organization_id" = $15 and exists (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in ($16, $17)))))) returning *

-- {"kind":"page","type":"variable","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where ("r"."workspace_id" = $1 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = $2 and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5))))))) order by "r"."created_date" asc, "r"."id" asc limit $6 offset $7

-- {"kind":"page","type":"variable","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "variable" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"vcs","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"vcs","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"vcs","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "vcs" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"vcs","columns":["id","organization_id","name","description","vcs_type","connection_type","client_id","client_secret","private_key","access_token","endpoint","api_url","callback","redirect_url","status","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "vcs" ("id", "organization_id", "name", "description", "vcs_type", "connection_type", "client_id", "client_secret", "private_key", "access_token", "endpoint", "api_url", "callback", "redirect_url", "status", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "vcs_type", $6 as "connection_type", $7 as "client_id", $8 as "client_secret", $9 as "private_key", $10 as "access_token", $11 as "endpoint", $12 as "api_url", $13 as "callback", $14 as "redirect_url", $15 as "status", $16 as "created_by", $17 as "created_date", $18 as "updated_by", $19 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $20 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($21, $22)))) returning *

-- {"kind":"page","type":"vcs","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"vcs","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "vcs" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"team","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"team","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"team","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "team" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"team","columns":["id","organization_id","name","role","manage_state","manage_workspace","manage_module","manage_provider","manage_vcs","manage_template","manage_job","manage_collection","plan_job","approve_job","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "team" ("id", "organization_id", "name", "role", "manage_state", "manage_workspace", "manage_module", "manage_provider", "manage_vcs", "manage_template", "manage_job", "manage_collection", "plan_job", "approve_job", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "role", $5 as "manage_state", $6 as "manage_workspace", $7 as "manage_module", $8 as "manage_provider", $9 as "manage_vcs", $10 as "manage_template", $11 as "manage_job", $12 as "manage_collection", $13 as "plan_job", $14 as "approve_job", $15 as "created_by", $16 as "created_date", $17 as "updated_by", $18 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $19 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($20, $21)))) returning *

-- {"kind":"page","type":"team","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"team","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "team" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"project","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"project","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"project","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "project" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"project","columns":["id","organization_id","name","description","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "project" ("id", "organization_id", "name", "description", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "created_by", $6 as "created_date", $7 as "updated_by", $8 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $9 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($10, $11)))) returning *

-- {"kind":"page","type":"project","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"project","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "project" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"tag","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"tag","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"tag","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "tag" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"tag","columns":["id","organization_id","name","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "tag" ("id", "organization_id", "name", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "created_by", $5 as "created_date", $6 as "updated_by", $7 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $8 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($9, $10)))) returning *

-- {"kind":"page","type":"tag","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"tag","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "tag" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"workspacetag","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and (exists (select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in ($6, $7)))))))

-- {"kind":"record","type":"workspacetag","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and (exists (select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in ($6, $7))))))) for update

-- {"kind":"record","type":"workspacetag","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1)))) and exists (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and (exists (select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and 1 = 1)))))

-- {"kind":"insert","type":"workspacetag","columns":["id","workspace_id","tag_id","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "workspace_tag" ("id", "workspace_id", "tag_id", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "workspace_id", $3 as "tag_id", $4 as "created_by", $5 as "created_date", $6 as "updated_by", $7 as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = $8 and ("p"."deleted" = 0 and "p"."organization_id" = $9 and exists (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in ($10, $11)))))) returning *

-- {"kind":"page","type":"workspacetag","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where ("r"."workspace_id" = $1 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = $2 and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5)))))) and exists (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and (exists (select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in ($6, $7))))))) order by "r"."created_date" asc, "r"."id" asc limit $8 offset $9

-- {"kind":"page","type":"workspacetag","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "workspace_tag" as "r" where (exists (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and (exists (select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in ($1, $2))))))) order by "r"."created_date" asc, "r"."id" asc limit $3 offset $4

-- {"kind":"record","type":"globalvar","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"globalvar","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"globalvar","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "globalvar" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"globalvar","columns":["id","organization_id","key","value","description","category","sensitive","hcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "globalvar" ("id", "organization_id", "key", "value", "description", "category", "sensitive", "hcl", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "key", $4 as "value", $5 as "description", $6 as "category", $7 as "sensitive", $8 as "hcl", $9 as "created_by", $10 as "created_date", $11 as "updated_by", $12 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $13 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($14, $15)))) returning *

-- {"kind":"page","type":"globalvar","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"globalvar","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "globalvar" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"ssh","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"ssh","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"ssh","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "ssh" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"ssh","columns":["id","organization_id","name","description","private_key","ssh_type","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "ssh" ("id", "organization_id", "name", "description", "private_key", "ssh_type", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "private_key", $6 as "ssh_type", $7 as "created_by", $8 as "created_date", $9 as "updated_by", $10 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $11 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($12, $13)))) returning *

-- {"kind":"page","type":"ssh","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"ssh","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "ssh" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"agent","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4)))))

-- {"kind":"record","type":"agent","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) for update

-- {"kind":"record","type":"agent","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "agent" as "r" where "r"."id" = $1 and ("r"."organization_id" = $2 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1)))

-- {"kind":"insert","type":"agent","columns":["id","organization_id","name","description","url","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "agent" ("id", "organization_id", "name", "description", "url", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "organization_id", $3 as "name", $4 as "description", $5 as "url", $6 as "created_by", $7 as "created_date", $8 as "updated_by", $9 as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = $10 and ("p"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in ($11, $12)))) returning *

-- {"kind":"page","type":"agent","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where ("r"."organization_id" = $1 and exists (select 1 from "organization" as "r_organization" where "r_organization"."id" = $2 and ("r_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in ($3, $4))))) order by "r"."created_date" asc, "r"."id" asc limit $5 offset $6

-- {"kind":"page","type":"agent","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "agent" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"schedule","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5)))))))

-- {"kind":"record","type":"schedule","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5))))))) for update

-- {"kind":"record","type":"schedule","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "schedule" as "r" where "r"."id" = $1 and ("r"."workspace_id" = $2 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1)))))

-- {"kind":"insert","type":"schedule","columns":["id","workspace_id","cron","template_reference","tcl","description","enabled","firing","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "schedule" ("id", "workspace_id", "cron", "template_reference", "tcl", "description", "enabled", "firing", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "workspace_id", $3 as "cron", $4 as "template_reference", $5 as "tcl", $6 as "description", $7 as "enabled", $8 as "firing", $9 as "created_by", $10 as "created_date", $11 as "updated_by", $12 as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = $13 and ("p"."deleted" = 0 and "p"."organization_id" = $14 and exists (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in ($15, $16)))))) returning *

-- {"kind":"page","type":"schedule","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where ("r"."workspace_id" = $1 and exists (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = $2 and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = $3 and exists (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and exists (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in ($4, $5))))))) order by "r"."created_date" asc, "r"."id" asc limit $6 offset $7

-- {"kind":"page","type":"schedule","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "schedule" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"action","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where "r"."id" = $1 and (1 = 1)

-- {"kind":"record","type":"action","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where "r"."id" = $1 and (1 = 1) for update

-- {"kind":"record","type":"action","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "action" as "r" where "r"."id" = $1 and (1 = 1)

-- {"kind":"insert","type":"action","columns":["id","name","label","category","description","type","action","display_criteria","version","active","created_by","created_date","updated_by","updated_date"]}
insert into "action" ("id", "name", "label", "category", "description", "type", "action", "display_criteria", "version", "active", "created_by", "created_date", "updated_by", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning *

-- {"kind":"page","type":"action","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where (1 = 1) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"page","type":"action","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "action" as "r" where (1 = 1) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"federated","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where "r"."id" = $1 and (1 = 0)

-- {"kind":"record","type":"federated","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where "r"."id" = $1 and (1 = 0) for update

-- {"kind":"record","type":"federated","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "federated" as "r" where "r"."id" = $1 and (1 = 1)

-- {"kind":"insert","type":"federated","columns":["id","name","issuer_url","audience","created_by","created_date","updated_by","updated_date"]}
insert into "federated" ("id", "name", "issuer_url", "audience", "created_by", "created_date", "updated_by", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8) returning *

-- {"kind":"page","type":"federated","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"page","type":"federated","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "federated" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2

-- {"kind":"record","type":"federated_claim","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where "r"."id" = $1 and (1 = 0 and "r"."federated_id" = $2 and exists (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 0)))

-- {"kind":"record","type":"federated_claim","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where "r"."id" = $1 and (1 = 0 and "r"."federated_id" = $2 and exists (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 0))) for update

-- {"kind":"record","type":"federated_claim","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "federated_claim" as "r" where "r"."id" = $1 and (1 = 1 and "r"."federated_id" = $2 and exists (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 1)))

-- {"kind":"insert","type":"federated_claim","columns":["id","federated_id","claim_key","claim_value","created_by","created_date","updated_by","updated_date"],"under":{"type":"federated","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "federated_claim" ("id", "federated_id", "claim_key", "claim_value", "created_by", "created_date", "updated_by", "updated_date") select $1 as "id", $2 as "federated_id", $3 as "claim_key", $4 as "claim_value", $5 as "created_by", $6 as "created_date", $7 as "updated_by", $8 as "updated_date" where exists (select 1 as "one" from "federated" as "p" where "p"."id" = $9 and (1 = 0)) returning *

-- {"kind":"page","type":"federated_claim","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where (1 = 0 and "r"."federated_id" = $1 and exists (select 1 from "federated" as "r_federated" where "r_federated"."id" = $2 and (1 = 0))) order by "r"."created_date" asc, "r"."id" asc limit $3 offset $4

-- {"kind":"page","type":"federated_claim","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "federated_claim" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit $1 offset $2
