SELECT current_schema()::text, current_user::text
