/** pg ships no types and DBOS's own are not what the bench needs: the one query it runs. */
declare module 'pg';
