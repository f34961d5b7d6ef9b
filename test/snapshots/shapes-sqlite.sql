-- {"kind":"record","type":"organization","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where "r"."id" = ? and ("r"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in (?, ?) limit 1) is not null)

-- {"kind":"record","type":"organization","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where "r"."id" = ? and ("r"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in (?, ?) limit 1) is not null) for update

-- {"kind":"record","type":"organization","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "organization" as "r" where "r"."id" = ? and ("r"."disabled" = 0 and 1 = 1)

-- {"kind":"insert","type":"organization","columns":["id","name","description","execution_mode","icon","disabled","created_by","created_date","updated_by","updated_date"]}
insert into "organization" ("id", "name", "description", "execution_mode", "icon", "disabled", "created_by", "created_date", "updated_by", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *

-- {"kind":"page","type":"organization","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "organization" as "r" where ("r"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in (?, ?) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"organization","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "organization" as "r" where ("r"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r"."id" and "member"."name" in (?, ?) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"template","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"template","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"template","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "template" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"template","columns":["id","organization_id","name","description","version","tcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "template" ("id", "organization_id", "name", "description", "version", "tcl", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "version", ? as "tcl", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"template","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "template" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"template","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "template" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"collection","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"collection","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"collection","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "collection" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"collection","columns":["id","organization_id","name","description","priority","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "collection" ("id", "organization_id", "name", "description", "priority", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "priority", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"collection","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "collection" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"collection","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "collection" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"item","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"item","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"item","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "item" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null)

-- {"kind":"insert","type":"item","columns":["id","collection_id","key","value","description","category","sensitive","hcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"collection","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "item" ("id", "collection_id", "key", "value", "description", "category", "sensitive", "hcl", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "collection_id", ? as "key", ? as "value", ? as "description", ? as "category", ? as "sensitive", ? as "hcl", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "collection" as "p" where "p"."id" = ? and ("p"."organization_id" = ? and (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)) returning *

-- {"kind":"page","type":"item","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "item" as "r" where ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = ? and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"item","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "item" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"reference","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"reference","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"reference","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "reference" as "r" where "r"."id" = ? and ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = "r"."collection_id" and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null)

-- {"kind":"insert","type":"reference","columns":["id","collection_id","description","created_by","created_date","updated_by","updated_date"],"under":{"type":"collection","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "reference" ("id", "collection_id", "description", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "collection_id", ? as "description", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "collection" as "p" where "p"."id" = ? and ("p"."organization_id" = ? and (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)) returning *

-- {"kind":"page","type":"reference","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "reference" as "r" where ("r"."collection_id" = ? and (select 1 from "collection" as "r_collection" where "r_collection"."id" = ? and ("r_collection"."organization_id" = ? and (select 1 from "organization" as "r_collection_organization" where "r_collection_organization"."id" = "r_collection"."organization_id" and ("r_collection_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_collection_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"reference","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "reference" as "r" where ((select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"workspace","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where "r"."id" = ? and ("r"."deleted" = 0 and "r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"workspace","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where "r"."id" = ? and ("r"."deleted" = 0 and "r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"workspace","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "workspace" as "r" where "r"."id" = ? and ("r"."deleted" = 0 and "r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"workspace","columns":["id","organization_id","name","description","source","branch","folder","default_template","iac_type","terraform_version","execution_mode","allow_remote_apply","global_remote_state","shared_ids","module_ssh_key","locked","lock_description","deleted","last_job_status","last_job_date","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "workspace" ("id", "organization_id", "name", "description", "source", "branch", "folder", "default_template", "iac_type", "terraform_version", "execution_mode", "allow_remote_apply", "global_remote_state", "shared_ids", "module_ssh_key", "locked", "lock_description", "deleted", "last_job_status", "last_job_date", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "source", ? as "branch", ? as "folder", ? as "default_template", ? as "iac_type", ? as "terraform_version", ? as "execution_mode", ? as "allow_remote_apply", ? as "global_remote_state", ? as "shared_ids", ? as "module_ssh_key", ? as "locked", ? as "lock_description", ? as "deleted", ? as "last_job_status", ? as "last_job_date", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"workspace","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace" as "r" where ("r"."deleted" = 0 and "r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"workspace","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "workspace" as "r" where ("r"."deleted" = 0) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"variable","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"variable","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"variable","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "variable" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null)

-- {"kind":"insert","type":"variable","columns":["id","workspace_id","key","value","description","category","sensitive","hcl","incomplete","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "variable" ("id", "workspace_id", "key", "value", "description", "category", "sensitive", "hcl", "incomplete", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "workspace_id", ? as "key", ? as "value", ? as "description", ? as "category", ? as "sensitive", ? as "hcl", ? as "incomplete", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = ? and ("p"."deleted" = 0 and "p"."organization_id" = ? and (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)) returning *

-- {"kind":"page","type":"variable","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "variable" as "r" where ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = ? and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"variable","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "variable" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"vcs","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"vcs","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"vcs","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "vcs" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"vcs","columns":["id","organization_id","name","description","vcs_type","connection_type","client_id","client_secret","private_key","access_token","endpoint","api_url","callback","redirect_url","status","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "vcs" ("id", "organization_id", "name", "description", "vcs_type", "connection_type", "client_id", "client_secret", "private_key", "access_token", "endpoint", "api_url", "callback", "redirect_url", "status", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "vcs_type", ? as "connection_type", ? as "client_id", ? as "client_secret", ? as "private_key", ? as "access_token", ? as "endpoint", ? as "api_url", ? as "callback", ? as "redirect_url", ? as "status", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"vcs","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "vcs" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"vcs","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "vcs" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"team","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"team","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"team","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "team" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"team","columns":["id","organization_id","name","role","manage_state","manage_workspace","manage_module","manage_provider","manage_vcs","manage_template","manage_job","manage_collection","plan_job","approve_job","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "team" ("id", "organization_id", "name", "role", "manage_state", "manage_workspace", "manage_module", "manage_provider", "manage_vcs", "manage_template", "manage_job", "manage_collection", "plan_job", "approve_job", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "role", ? as "manage_state", ? as "manage_workspace", ? as "manage_module", ? as "manage_provider", ? as "manage_vcs", ? as "manage_template", ? as "manage_job", ? as "manage_collection", ? as "plan_job", ? as "approve_job", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"team","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "team" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"team","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "team" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"project","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"project","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"project","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "project" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"project","columns":["id","organization_id","name","description","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "project" ("id", "organization_id", "name", "description", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"project","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "project" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"project","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "project" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"tag","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"tag","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"tag","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "tag" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"tag","columns":["id","organization_id","name","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "tag" ("id", "organization_id", "name", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"tag","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "tag" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"tag","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "tag" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"workspacetag","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and ((select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"workspacetag","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and ((select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"workspacetag","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "workspace_tag" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null and (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and ((select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null)

-- {"kind":"insert","type":"workspacetag","columns":["id","workspace_id","tag_id","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "workspace_tag" ("id", "workspace_id", "tag_id", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "workspace_id", ? as "tag_id", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = ? and ("p"."deleted" = 0 and "p"."organization_id" = ? and (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)) returning *

-- {"kind":"page","type":"workspacetag","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "workspace_tag" as "r" where ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = ? and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null and (select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and ((select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"workspacetag","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "workspace_tag" as "r" where ((select 1 from "tag" as "r_tag" where "r_tag"."id" = "r"."tag_id" and ((select 1 from "organization" as "r_tag_organization" where "r_tag_organization"."id" = "r_tag"."organization_id" and ("r_tag_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_tag_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"globalvar","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"globalvar","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"globalvar","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "globalvar" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"globalvar","columns":["id","organization_id","key","value","description","category","sensitive","hcl","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "globalvar" ("id", "organization_id", "key", "value", "description", "category", "sensitive", "hcl", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "key", ? as "value", ? as "description", ? as "category", ? as "sensitive", ? as "hcl", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"globalvar","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "globalvar" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"globalvar","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "globalvar" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"ssh","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"ssh","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"ssh","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "ssh" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"ssh","columns":["id","organization_id","name","description","private_key","ssh_type","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "ssh" ("id", "organization_id", "name", "description", "private_key", "ssh_type", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "private_key", ? as "ssh_type", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"ssh","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "ssh" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"ssh","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "ssh" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"agent","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"agent","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"agent","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "agent" as "r" where "r"."id" = ? and ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = "r"."organization_id" and ("r_organization"."disabled" = 0 and 1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"agent","columns":["id","organization_id","name","description","url","created_by","created_date","updated_by","updated_date"],"under":{"type":"organization","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "agent" ("id", "organization_id", "name", "description", "url", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "organization_id", ? as "name", ? as "description", ? as "url", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "organization" as "p" where "p"."id" = ? and ("p"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p"."id" and "member"."name" in (?, ?) limit 1) is not null)) returning *

-- {"kind":"page","type":"agent","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "agent" as "r" where ("r"."organization_id" = ? and (select 1 from "organization" as "r_organization" where "r_organization"."id" = ? and ("r_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"agent","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "agent" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"schedule","lock":false,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null)

-- {"kind":"record","type":"schedule","lock":true,"visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) for update

-- {"kind":"record","type":"schedule","lock":false,"visibility":{"depth":2,"reader":{"administrator":true,"groups":0}}}
select "r".* from "schedule" as "r" where "r"."id" = ? and ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = "r"."workspace_id" and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and 1 = 1) limit 1) is not null) limit 1) is not null)

-- {"kind":"insert","type":"schedule","columns":["id","workspace_id","cron","template_reference","tcl","description","enabled","firing","created_by","created_date","updated_by","updated_date"],"under":{"type":"workspace","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}}
insert into "schedule" ("id", "workspace_id", "cron", "template_reference", "tcl", "description", "enabled", "firing", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "workspace_id", ? as "cron", ? as "template_reference", ? as "tcl", ? as "description", ? as "enabled", ? as "firing", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "workspace" as "p" where "p"."id" = ? and ("p"."deleted" = 0 and "p"."organization_id" = ? and (select 1 from "organization" as "p_organization" where "p_organization"."id" = "p"."organization_id" and ("p_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "p_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null)) returning *

-- {"kind":"page","type":"schedule","idsOnly":false,"parentCheck":"once","visibility":{"depth":2,"reader":{"administrator":false,"groups":2}}}
select "r".* from "schedule" as "r" where ("r"."workspace_id" = ? and (select 1 from "workspace" as "r_workspace" where "r_workspace"."id" = ? and ("r_workspace"."deleted" = 0 and "r_workspace"."organization_id" = ? and (select 1 from "organization" as "r_workspace_organization" where "r_workspace_organization"."id" = "r_workspace"."organization_id" and ("r_workspace_organization"."disabled" = 0 and (select 1 from "team" as member where "member"."organization_id" = "r_workspace_organization"."id" and "member"."name" in (?, ?) limit 1) is not null) limit 1) is not null) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"schedule","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "schedule" as "r" where 1 = 1 order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"action","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where "r"."id" = ? and (1 = 1)

-- {"kind":"record","type":"action","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where "r"."id" = ? and (1 = 1) for update

-- {"kind":"record","type":"action","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "action" as "r" where "r"."id" = ? and (1 = 1)

-- {"kind":"insert","type":"action","columns":["id","name","label","category","description","type","action","display_criteria","version","active","created_by","created_date","updated_by","updated_date"]}
insert into "action" ("id", "name", "label", "category", "description", "type", "action", "display_criteria", "version", "active", "created_by", "created_date", "updated_by", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *

-- {"kind":"page","type":"action","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "action" as "r" where (1 = 1) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"action","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "action" as "r" where (1 = 1) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"federated","lock":false,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where "r"."id" = ? and (1 = 0)

-- {"kind":"record","type":"federated","lock":true,"visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where "r"."id" = ? and (1 = 0) for update

-- {"kind":"record","type":"federated","lock":false,"visibility":{"depth":0,"reader":{"administrator":true,"groups":0}}}
select "r".* from "federated" as "r" where "r"."id" = ? and (1 = 1)

-- {"kind":"insert","type":"federated","columns":["id","name","issuer_url","audience","created_by","created_date","updated_by","updated_date"]}
insert into "federated" ("id", "name", "issuer_url", "audience", "created_by", "created_date", "updated_by", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?) returning *

-- {"kind":"page","type":"federated","idsOnly":false,"parentCheck":"row","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"federated","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "federated" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"record","type":"federated_claim","lock":false,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where "r"."id" = ? and (1 = 0 and "r"."federated_id" = ? and (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 0) limit 1) is not null)

-- {"kind":"record","type":"federated_claim","lock":true,"visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where "r"."id" = ? and (1 = 0 and "r"."federated_id" = ? and (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 0) limit 1) is not null) for update

-- {"kind":"record","type":"federated_claim","lock":false,"visibility":{"depth":1,"reader":{"administrator":true,"groups":0}}}
select "r".* from "federated_claim" as "r" where "r"."id" = ? and (1 = 1 and "r"."federated_id" = ? and (select 1 from "federated" as "r_federated" where "r_federated"."id" = "r"."federated_id" and (1 = 1) limit 1) is not null)

-- {"kind":"insert","type":"federated_claim","columns":["id","federated_id","claim_key","claim_value","created_by","created_date","updated_by","updated_date"],"under":{"type":"federated","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}}
insert into "federated_claim" ("id", "federated_id", "claim_key", "claim_value", "created_by", "created_date", "updated_by", "updated_date") select ? as "id", ? as "federated_id", ? as "claim_key", ? as "claim_value", ? as "created_by", ? as "created_date", ? as "updated_by", ? as "updated_date" where exists (select 1 as "one" from "federated" as "p" where "p"."id" = ? and (1 = 0)) returning *

-- {"kind":"page","type":"federated_claim","idsOnly":false,"parentCheck":"once","visibility":{"depth":1,"reader":{"administrator":false,"groups":2}}}
select "r".* from "federated_claim" as "r" where (1 = 0 and "r"."federated_id" = ? and (select 1 from "federated" as "r_federated" where "r_federated"."id" = ? and (1 = 0) limit 1) is not null) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?

-- {"kind":"page","type":"federated_claim","idsOnly":true,"parentCheck":"done","visibility":{"depth":0,"reader":{"administrator":false,"groups":2}}}
select "r"."id" from "federated_claim" as "r" where (1 = 0) order by "r"."created_date" asc, "r"."id" asc limit ? offset ?
